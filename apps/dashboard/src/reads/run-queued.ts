/** A run's first event, `run-queued`: what it was fired with (agent, input, metadata, …). */
import type { RunEventOf } from "@errand/core";
import type { DashboardContext } from "../context.js";

/** The run's `run-queued` event, or `undefined` when its log is gone (expired). */
export async function readRunQueued(
  context: DashboardContext,
  runId: string,
): Promise<RunEventOf<"run-queued"> | undefined> {
  const [event] = await context.errand.store.readLog(runId, { untilSeq: 1 });
  return event?.type === "run-queued" ? event : undefined;
}
