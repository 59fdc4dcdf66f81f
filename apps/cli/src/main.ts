#!/usr/bin/env node
/**
 * The `errand` executable: runs the command line, then exits with its code
 * once stdout and stderr are flushed. Exiting explicitly keeps a timer left
 * behind by a library (BullMQ's stalled-jobs check, when a worker closes
 * during its first check) from holding the finished command open.
 */
import { runCli } from "./cli.js";
import { processIO } from "./io.js";
import { startTracing } from "./tracing/start-tracing.js";

/** Resolves once everything written to `stream` so far has been handed to the OS. */
function flushed(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => stream.write("", () => resolve()));
}

// Once the terminal is gone (SIGHUP) or the reader of a pipe left, output cannot be
// written; dropping it lets the command still stop what it started and exit.
for (const stream of [process.stdout, process.stderr]) stream.on("error", () => {});

const tracing = startTracing(process.env);
const code = await runCli(process.argv.slice(2), processIO());
await tracing?.shutdown();
await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
process.exit(code);
