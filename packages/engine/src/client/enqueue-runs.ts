/**
 * Writing runs that passed preflight: each gets a runId and its `run-queued`
 * (all appends of a batch leave in one pipeline), joins its parent's children,
 * and its job is enqueued (one `addBulk` per queue). The log is written
 * first, so a job always finds its run; a run whose job then cannot be
 * enqueued is withdrawn (or otherwise resolved, see `unenqueued-runs.ts`),
 * so that no run waits for a job that never comes. A write Redis refuses for
 * lack of memory fails as `redis_out_of_memory` (retryable), nothing fired.
 *
 * A run may come with a runId chosen beforehand (a parent's `spawn_agents`
 * claims its children's runIds first, so that a repeated call fires the same
 * runs). Firing such a run again is harmless: when its log already exists it
 * counts as written, and enqueueing it again adds nothing (a job id is
 * unique in its queue; a job already removed comes back, finds its run
 * settled and ends).
 */
import type { ErrandError } from "@errand/core";
import type { Span } from "@opentelemetry/api";
import type { EngineResources } from "../resources.js";
import type { RunJob, RunQueues } from "../run-queues.js";
import { endSendSpan, startSendSpan } from "../tracing/messaging-spans.js";
import { traceContextOf } from "../tracing/trace-context.js";
import type { PreparedRun } from "./fire-preflight.js";
import type { MetadataLimits } from "./fire-spec.js";
import { asFireError, type LoggedRun, resolveUnenqueued } from "./unenqueued-runs.js";

/**
 * What firing needs: the resources (whose connection is auto-pipelined:
 * commands issued in one tick leave as one pipeline), the queues and the limits.
 */
export interface FireContext extends EngineResources {
  queues: RunQueues;
  /** The largest input, in bytes of UTF-8 JSON. */
  maxInputBytes: number;
  /** How much metadata a run may carry. Default `DEFAULT_METADATA_LIMITS`. */
  metadataLimits?: MetadataLimits;
}

/** What became of one run: fired, or refused with its error (with its runId once it had one). */
export type FireOutcome =
  | { ok: true; runId: string }
  | { ok: false; runId?: string; error: ErrandError };

/** A run to write and enqueue: a spec that passed preflight, and its runId when chosen beforehand. */
export interface RunToFire {
  prepared: PreparedRun;
  runId?: string;
}

/**
 * Writes the run's `run-queued` (carrying its `send` span) and resolves with
 * it as logged; a run fired before under the same chosen runId counts as
 * written (without `writtenAt`).
 */
async function writeQueued(
  context: FireContext,
  runId: string,
  { prepared, runId: chosen }: RunToFire,
  at: Date,
  send: Span,
): Promise<LoggedRun> {
  const { store } = context;
  try {
    await store.appendEvents(runId, 0, [prepared.queuedEvent(runId, at, traceContextOf(send))]);
    return { runId, prepared, writtenAt: at.toISOString() };
  } catch (error) {
    if (chosen !== undefined && (await store.readHead(runId)) !== undefined) {
      return { runId, prepared };
    }
    throw error;
  }
}

/**
 * Links children to their parents (the children set of a parent that has
 * settled expires with the store's retention), then enqueues one queue's
 * runs in one `addBulk`.
 */
async function enqueueQueue(
  context: FireContext,
  queue: string,
  runs: readonly LoggedRun[],
): Promise<void> {
  const { redis, keys, queues, store } = context;
  await Promise.all(
    runs.flatMap(({ runId, prepared }) => {
      if (prepared.parentRunId === undefined) return [];
      const children = keys.children(prepared.parentRunId);
      const linked = redis.zadd(children, 0, runId);
      // A settled parent's children set got its TTL when it settled; one made after gets it here.
      if (!prepared.parentSettled) return [linked];
      return [linked, redis.expire(children, store.retentionSeconds)];
    }),
  );
  const jobs: RunJob[] = runs.map(({ runId, prepared }) => ({
    runId,
    agent: prepared.registration.name,
  }));
  await queues.add(queue, jobs);
}

function byQueue(runs: readonly LoggedRun[]): Map<string, LoggedRun[]> {
  const groups = new Map<string, LoggedRun[]>();
  for (const run of runs) {
    const queue = run.prepared.registration.queue;
    groups.set(queue, [...(groups.get(queue) ?? []), run]);
  }
  return groups;
}

/**
 * Writes and enqueues `toFire`; one outcome per run, in order. A run without
 * a chosen runId gets a new one. The appends are issued together (one
 * pipeline on the auto-pipelined connection); each queue gets one `addBulk`.
 * Each run is a `send {queue}` span, a child of the active context, stored
 * in its `run-queued`.
 */
export async function enqueueRuns(
  context: FireContext,
  toFire: readonly RunToFire[],
): Promise<FireOutcome[]> {
  const at = context.now();
  const runIds = toFire.map(({ runId }) => runId ?? context.store.newRunId());
  const sends = toFire.map(({ prepared }, index) =>
    startSendSpan(prepared.registration.queue, runIds[index]!),
  );
  const appended = await Promise.allSettled(
    toFire.map((run, index) => writeQueued(context, runIds[index]!, run, at, sends[index]!)),
  );
  const outcomes = new Map<string, FireOutcome>();
  const logged: LoggedRun[] = [];
  appended.forEach((result, index) => {
    if (result.status === "fulfilled") logged.push(result.value);
    else outcomes.set(runIds[index]!, { ok: false, error: asFireError(result.reason) });
  });
  await Promise.all(
    [...byQueue(logged)].map(async ([queue, group]) => {
      try {
        await enqueueQueue(context, queue, group);
        for (const { runId } of group) outcomes.set(runId, { ok: true, runId });
      } catch (error) {
        const resolved = await resolveUnenqueued(context, queue, group, error);
        for (const [index, { runId }] of group.entries()) outcomes.set(runId, resolved[index]!);
      }
    }),
  );
  return runIds.map((runId, index) => {
    const outcome = outcomes.get(runId)!;
    endSendSpan(sends[index]!, outcome.ok ? undefined : outcome.error);
    return outcome;
  });
}
