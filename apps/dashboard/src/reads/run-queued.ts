/** A run's first event, `run-queued`: what it was fired with (agent, input, metadata, …). */
import type { RunEventOf } from "@errand/core";
import { decodeLogEntry, logEntryId, type StreamEntry } from "@errand/store";
import type { DashboardContext } from "../context.js";

/** The run's `run-queued` event, or `undefined` when its log is gone (expired). */
export async function readRunQueued(
  context: DashboardContext,
  runId: string,
): Promise<RunEventOf<"run-queued"> | undefined> {
  const id = logEntryId(1);
  const entries = (await context.redis.xrange(context.keys.runLog(runId), id, id)) as StreamEntry[];
  const entry = entries[0];
  if (entry === undefined) return undefined;
  const event = decodeLogEntry(runId, entry);
  return event.type === "run-queued" ? event : undefined;
}
