/**
 * `errand runs tail <runId>`: a run's log, followed live until it settles;
 * with `--stream`, what a streaming model writes as it writes it (the run's
 * live deltas, docs/architecture/redis-layout.md#the-live-channel-streaming).
 */
import { foldRun, isTerminalEventType, type RunEvent, settleRun } from "@errand/core";
import type { Errand } from "@errand/engine";
import { CONNECTION_OPTIONS, type CommandSpec, JSON_OPTION } from "../command.js";
import { withErrand } from "../errand-client.js";
import { eventLine } from "../event-lines.js";
import { EXIT } from "../exit-codes.js";
import type { CliIO } from "../io.js";
import { writeJson, writeLines } from "../output.js";
import { deltaText } from "../stream-text.js";

/** Prints the run's events until its terminal event; the log as printed. */
async function tailEvents(errand: Errand, io: CliIO, runId: string, json: boolean) {
  const log: RunEvent[] = [];
  for await (const event of errand.events(runId, { follow: true })) {
    log.push(event);
    if (json) writeJson(io, event);
    else writeLines(io, [eventLine(event)]);
    if (isTerminalEventType(event.type)) break;
  }
  return log;
}

/** Prints the run's deltas until it settles, then its terminal event; the whole log. */
async function tailStream(errand: Errand, io: CliIO, runId: string, json: boolean) {
  let previous: Parameters<typeof deltaText>[0];
  for await (const delta of errand.stream(runId)) {
    if (json) writeJson(io, delta);
    else io.stdout.write(deltaText(previous, delta));
    previous = delta;
  }
  const log = await errand.store.readLog(runId);
  const last = log.at(-1);
  if (!json && previous !== undefined) io.stdout.write("\n");
  if (!json && last !== undefined) writeLines(io, [eventLine(last)]);
  return log;
}

/** `runs tail`. */
export const runsTailCommand: CommandSpec = {
  usage: "errand runs tail <runId> [--stream] [--json]",
  description: [
    "Prints the run's events as they are appended, until the run settles: one line per",
    "event, or with --json one JSON event per line. With --stream, prints instead what a",
    "streaming model (openaiModel({ stream: true })) writes as it arrives — the current",
    "step's text so far, then each piece — with a header line per model request, then",
    "the run's last event; with --json, one JSON delta per line ({ type, step, offset, … }).",
    "Exits 0 when the run succeeded, 1 when it failed or was cancelled.",
  ].join("\n"),
  positionals: [{ name: "runId", description: "the run" }],
  options: {
    stream: {
      type: "boolean",
      description: "print the model's text and tool arguments as they are written",
    },
    ...JSON_OPTION,
    ...CONNECTION_OPTIONS,
  },
  async run(args, io) {
    const runId = args.positional(0, "runId");
    const json = args.flag("json");
    const tail = args.flag("stream") ? tailStream : tailEvents;
    let log: RunEvent[] = [];
    await withErrand(args, io, async (errand) => {
      log = await tail(errand, io, runId, json);
    });
    return settleRun(foldRun(log))?.status === "succeeded" ? EXIT.ok : EXIT.failure;
  },
};
