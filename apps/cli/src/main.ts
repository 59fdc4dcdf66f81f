#!/usr/bin/env node
/**
 * The `errand` executable: runs the command line and exits with its code.
 */
import { runCli } from "./cli.js";
import { processIO } from "./io.js";

process.exitCode = await runCli(process.argv.slice(2), processIO());
