/**
 * Writing runs that passed preflight: each gets a runId and its `run-queued`
 * (all appends of a batch leave in one pipeline), joins its parent's children,
 * and its job is enqueued (one `addBulk` per queue). A run whose job cannot be
 * enqueued after its log was written is settled `failed` (`internal`), so that
 * nobody waits for it forever.
 *
 * A run may come with a runId chosen beforehand (a parent's `spawn_agents`
 * claims its children's runIds first, so that a repeated call fires the same
 * runs). Firing such a run again is harmless: when its log already exists it
 * counts as written, and enqueueing it again adds nothing (a job id is
 * unique in its queue; a job already removed comes back, finds its run
 * settled and ends).
 */
import { ErrandError, isErrandError } from "@errand/core";
import type { EventStore } from "@errand/store";
import type { EngineResources } from "../resources.js";
import type { RunJob, RunQueues } from "../run-queues.js";
import type { PreparedRun } from "./fire-preflight.js";
import type { MetadataLimits } from "./fire-spec.js";

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

/** `error` as an {@link ErrandError}; anything else is an `internal` error worth a retry. */
export function asErrandError(error: unknown): ErrandError {
  if (isErrandError(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new ErrandError("internal", message, { retryable: true, cause: error });
}

/** A run to write and enqueue: a spec that passed preflight, and its runId when chosen beforehand. */
export interface RunToFire {
  prepared: PreparedRun;
  runId?: string;
}

interface LoggedRun {
  runId: string;
  prepared: PreparedRun;
}

/** Writes the run's `run-queued`; a run fired before under the same chosen runId counts as written. */
async function writeQueued(
  context: FireContext,
  run: LoggedRun,
  chosen: boolean,
  at: Date,
): Promise<void> {
  const { store } = context;
  try {
    await store.appendEvents(run.runId, 0, [run.prepared.queuedEvent(run.runId, at)]);
  } catch (error) {
    if (chosen && (await store.readHead(run.runId)) !== undefined) return;
    throw error;
  }
}

/** Settles runs whose job could not be enqueued, so they do not hang; best effort. */
async function failUnenqueued(
  store: EventStore,
  runs: readonly LoggedRun[],
  cause: ErrandError,
  at: string,
): Promise<void> {
  const data = {
    code: "internal",
    message: `the run could not be enqueued: ${cause.message}`,
    retryable: true,
  };
  await Promise.allSettled(
    runs.map(({ runId }) => store.appendEvents(runId, "any", [{ type: "failed", at, data }])),
  );
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
 */
export async function enqueueRuns(
  context: FireContext,
  toFire: readonly RunToFire[],
): Promise<FireOutcome[]> {
  const { store } = context;
  const at = context.now();
  const runs: LoggedRun[] = toFire.map(({ prepared, runId }) => ({
    runId: runId ?? store.newRunId(),
    prepared,
  }));
  const appended = await Promise.allSettled(
    runs.map((run, index) => writeQueued(context, run, toFire[index]!.runId !== undefined, at)),
  );
  const outcomes = new Map<string, FireOutcome>();
  const logged: LoggedRun[] = [];
  appended.forEach((result, index) => {
    const run = runs[index]!;
    if (result.status === "fulfilled") logged.push(run);
    else outcomes.set(run.runId, { ok: false, error: asErrandError(result.reason) });
  });
  await Promise.all(
    [...byQueue(logged)].map(async ([queue, group]) => {
      try {
        await enqueueQueue(context, queue, group);
        for (const { runId } of group) outcomes.set(runId, { ok: true, runId });
      } catch (error) {
        const cause = asErrandError(error);
        await failUnenqueued(store, group, cause, context.now().toISOString());
        for (const { runId } of group) {
          const message = `run ${runId} could not be enqueued and was settled failed: ${cause.message}`;
          const failure = new ErrandError("internal", message, {
            retryable: true,
            cause,
            details: { runId },
          });
          outcomes.set(runId, { ok: false, runId, error: failure });
        }
      }
    }),
  );
  return runs.map(({ runId }) => outcomes.get(runId)!);
}
