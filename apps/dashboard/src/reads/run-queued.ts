/** A run's first event, `run-queued`: what it was fired with (agent, input, metadata, …). */
import type { RunEventOf } from "@errand/core";
import type { DashboardContext } from "../context.js";

/** A run's `run-queued` event, and the characters its log entry took (its fields, summed). */
export interface SizedRunQueued {
  event: RunEventOf<"run-queued">;
  chars: number;
}

/** The characters of the log entry of `event`: its fields seq, type, at and data, as stored. */
function entryChars(event: RunEventOf<"run-queued">): number {
  return (
    String(event.seq).length +
    event.type.length +
    event.at.length +
    JSON.stringify(event.data).length
  );
}

/** The run's `run-queued` event and its size, or `undefined` when its log is gone (expired). */
export async function readSizedRunQueued(
  context: DashboardContext,
  runId: string,
): Promise<SizedRunQueued | undefined> {
  const [event] = await context.errand.store.readLog(runId, { untilSeq: 1 });
  if (event?.type !== "run-queued") return undefined;
  return { event, chars: entryChars(event) };
}
