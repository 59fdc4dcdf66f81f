/** A run's first event, `run-queued`: what it was fired with (agent, input, metadata, …). */
import type { RunEventOf } from "@errand/core";
import { decodeLogEntry, logEntryId, type StreamEntry } from "@errand/store";
import type { DashboardContext } from "../context.js";

/** A run's `run-queued` event, and the characters its log entry took (its fields, summed). */
export interface SizedRunQueued {
  event: RunEventOf<"run-queued">;
  chars: number;
}

/** The run's `run-queued` event and its size, or `undefined` when its log is gone (expired). */
export async function readSizedRunQueued(
  context: DashboardContext,
  runId: string,
): Promise<SizedRunQueued | undefined> {
  const id = logEntryId(1);
  const entries = (await context.redis.xrange(context.keys.runLog(runId), id, id)) as StreamEntry[];
  const entry = entries[0];
  if (entry === undefined) return undefined;
  const event = decodeLogEntry(runId, entry);
  if (event.type !== "run-queued") return undefined;
  return { event, chars: entry[1].reduce((total, field) => total + field.length, 0) };
}

/** The run's `run-queued` event, or `undefined` when its log is gone (expired). */
export async function readRunQueued(
  context: DashboardContext,
  runId: string,
): Promise<RunEventOf<"run-queued"> | undefined> {
  return (await readSizedRunQueued(context, runId))?.event;
}
