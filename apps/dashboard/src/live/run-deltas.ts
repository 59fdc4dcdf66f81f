/**
 * A run's live deltas (docs/architecture/redis-layout.md#the-live-channel-streaming): `GET /api/runs/:runId/stream?from=`
 * is a stream of server-sent events read through the dashboard's shared
 * follower (the engine's `reads/run-log-follower.ts`: no connection of its own):
 *
 * - `delta`: each entry of the run's live channel after `from` (default: the
 *   current model request's answer so far), its offset as the event's `id`,
 *   so a browser that reconnects resumes after the last one it got
 *   (`Last-Event-ID`);
 * - `end`: once the run has settled and its channel is read (the stream then closes).
 *
 * The run's log is followed alongside, for its terminal event only: deltas
 * are written before the step that ends them is appended, so what the
 * channel holds then is complete, and what the follower has not handed over
 * yet is read directly.
 */
import { foldRun, isSettled } from "@errand/core";
import type { RunLogFollower } from "@errand/engine/ops";
import type { DashboardContext } from "../context.js";
import type { LiveStream } from "./live-streams.js";

/** Sends `runId`'s deltas after `from` into `stream` until the run settles or the stream ends. */
export async function streamDeltas(
  context: DashboardContext,
  follower: RunLogFollower,
  runId: string,
  from: string | undefined,
  stream: LiveStream,
): Promise<void> {
  const { store } = context.errand;
  const log = await store.readLog(runId);
  const settled = isSettled(foldRun(log, runId));
  let offset = from;
  const deltas = new AbortController();
  const live = (async () => {
    const signal = AbortSignal.any([stream.signal, deltas.signal]);
    for await (const delta of follower.followLive(runId, offset, signal)) {
      await stream.send("delta", delta, delta.offset);
      offset = delta.offset;
    }
  })();
  if (!settled) {
    const seq = log.at(-1)?.seq ?? 0;
    for await (const _event of follower.follow(runId, seq, stream.signal)) {
      // Only the end of the log matters here: `follow` ends after the terminal event.
    }
  }
  deltas.abort();
  await live;
  if (stream.signal.aborted) return;
  for (const delta of await store.readLive(runId, offset)) {
    await stream.send("delta", delta, delta.offset);
  }
  await stream.send("end", { runId });
}
