/**
 * A run, live: `GET /api/runs/:runId/live?afterSeq=N` is a stream of
 * server-sent events following the run's log through the dashboard's shared
 * follower (the engine's `reads/run-log-follower.ts`: blocking reads, no connection of its own,
 * no polling):
 *
 * - `run`: the run's view (`RunView`), first as it stands, then after each new event;
 * - `event`: each event after `afterSeq`, as the timeline shows it;
 * - `end`: once the run has settled (the stream then closes).
 */
import { applyEvent, foldRun, isSettled, type RunState } from "@errand/core";
import type { RunLogFollower } from "@errand/engine/ops";
import type { DashboardContext } from "../context.js";
import { timelineEvent } from "../present/timeline.js";
import { runViewOf } from "../reads/run-view.js";
import type { LiveStream } from "./live-streams.js";

/** Follows `runId` into `stream` from after `afterSeq` until it settles or the stream ends. */
export async function streamRun(
  context: DashboardContext,
  follower: RunLogFollower,
  runId: string,
  afterSeq: number,
  stream: LiveStream,
): Promise<void> {
  const log = await context.errand.store.readLog(runId);
  let state: RunState = foldRun(log, runId);
  await stream.send("run", runViewOf(state));
  for (const event of log)
    if (event.seq > afterSeq) await stream.send("event", timelineEvent(event));
  if (!isSettled(state)) {
    for await (const event of follower.follow(runId, state.seq, stream.signal)) {
      state = applyEvent(state, event);
      await stream.send("event", timelineEvent(event));
      await stream.send("run", runViewOf(state));
    }
  }
  if (isSettled(state)) await stream.send("end", { runId, status: state.status });
}
