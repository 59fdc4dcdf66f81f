/**
 * When runs ran, read from their logs, and how many ran at once: how the
 * flow-control tests check a concurrency limit. Test-only: not exported.
 */
import { isTerminalEventType, type RunEvent } from "@errand/core";

/** When a run ran, by its log: from its `run-started` to its terminal event (ms). */
export interface RanInterval {
  runId: string;
  workerId: string;
  startedAt: number;
  endedAt: number;
}

/** The interval the run `runId` ran in, from its settled log `events`. */
export function intervalOf(runId: string, events: readonly RunEvent[]): RanInterval {
  const started = events.find((event) => event.type === "run-started");
  const ended = events.find((event) => isTerminalEventType(event.type));
  if (started?.type !== "run-started" || ended === undefined) {
    throw new Error(`run ${runId} has no run-started or no terminal event`);
  }
  return {
    runId,
    workerId: started.data.workerId,
    startedAt: Date.parse(started.at),
    endedAt: Date.parse(ended.at),
  };
}

/** The most intervals open at once; one that ends when another starts does not overlap it. */
export function mostAtOnce(intervals: readonly RanInterval[]): number {
  const edges = intervals.flatMap(({ startedAt, endedAt }) => [
    { at: startedAt, change: 1 },
    { at: endedAt, change: -1 },
  ]);
  edges.sort((a, b) => a.at - b.at || a.change - b.change);
  let open = 0;
  let most = 0;
  for (const { change } of edges) {
    open += change;
    most = Math.max(most, open);
  }
  return most;
}
