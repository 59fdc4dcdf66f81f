/**
 * Writing runs that passed preflight: each gets a runId and its `run-queued`
 * (all appends of a batch leave in one pipeline), joins its parent's children,
 * and its job is enqueued (one `addBulk` per queue, with the run's priority,
 * carrying its `run-queued` as logged when it is small: `job-data.ts`).
 * The log is written first, so a job always finds its run; a run whose job
 * then cannot be enqueued is withdrawn (or otherwise resolved, see
 * `unenqueued-runs.ts`), so that no run waits for a job that never comes. A
 * write Redis refuses for lack of memory fails as `redis_out_of_memory`
 * (retryable), nothing fired.
 *
 * A run fired with an idempotency key gets a runId on the key's shard, and
 * its `run-queued` is written only when the key names no run yet (one script
 * checks and sets the key with the append): otherwise nothing is written or
 * enqueued and the outcome is the run the key names, `deduplicated`. Should
 * that run's producer have died before enqueueing its job, this fire links
 * and enqueues it (see `leftUnenqueued`); for a run nobody fires again, the
 * reaper enqueues it, as for any fire.
 *
 * With `durability: "replicated"`, the runs fired or found are answered once
 * a replica has them, one `WAIT` per master for the call (`replicated-fires.ts`).
 */
import type { Span } from "@opentelemetry/api";
import { addToGroup } from "../add-to-group.js";
import { fairPriorities } from "../flow-control/fair-queue.js";
import { carriedRunQueued } from "../queues/job-data.js";
import { hasRunJob } from "../queues/run-jobs.js";
import type { RunJob } from "../queues/run-queues.js";
import { CLIENT_PATIENCE_MS, CLIENT_WAITS_OUT } from "../redis/client-patience.js";
import { retryWhileRedisIsTransient } from "../redis/transient-redis.js";
import { endSendSpan, startSendSpan } from "../tracing/messaging-spans.js";
import { traceContextOf } from "../tracing/trace-context.js";
import type { FireContext, FireOutcome } from "./fire-context.js";
import type { PreparedRun } from "./fire-preflight.js";
import { confirmedOnReplicas } from "./replicated-fires.js";
import { asFireError, type LoggedRun, resolveUnenqueued } from "./unenqueued-runs.js";

/**
 * Writes the run's `run-queued` (carrying its `send` span) under `runId` and
 * resolves with it as logged, or with the outcome of a run its idempotency key
 * names already.
 */
async function writeQueued(
  context: FireContext,
  runId: string,
  prepared: PreparedRun,
  at: Date,
  send: Span,
): Promise<LoggedRun | FireOutcome> {
  const created = await context.store.createRun(
    runId,
    prepared.queuedEvent(runId, at, traceContextOf(send)),
    prepared.idempotency,
  );
  if (created.deduplicated) {
    const left = await leftUnenqueued(context, created.runId, prepared);
    return left ?? { ok: true, runId: created.runId, deduplicated: true };
  }
  const [logged] = created.events;
  // With per-event log entries (the first step of the upgrade) the job's data is what older workers read.
  const queued =
    logged === undefined || context.logEntries === "per-event"
      ? undefined
      : carriedRunQueued(logged);
  return {
    runId,
    prepared,
    writtenAt: at.toISOString(),
    ...(queued === undefined ? {} : { queued }),
  };
}

/**
 * The run an idempotency key names, when the fire that wrote it may have died
 * before linking it to its parent and enqueueing its job: nothing happened to
 * it since its `run-queued` (head at seq 1, queued), it is this spec's run
 * (same agent, same parent), and its queue holds no job of it. A `spawn_agents` call made again after its
 * worker was killed meets exactly this: its children must not wait for the
 * reaper, nor be missing from their parent's children while it collects.
 * Linking and enqueueing again are harmless (a set member, a job whose id is
 * the runId), so the run is enqueued as if this call had written it, and is
 * still answered as `deduplicated`.
 */
async function leftUnenqueued(
  context: FireContext,
  runId: string,
  prepared: PreparedRun,
): Promise<LoggedRun | undefined> {
  const head = await context.store.readHead(runId);
  if (
    head?.status !== "queued" ||
    head.seq !== 1 ||
    head.agent !== prepared.registration.name ||
    head.parentRunId !== prepared.parentRunId
  ) {
    return undefined;
  }
  const queue = context.queues.ofRun(prepared.registration.queue, runId);
  if (await hasRunJob(context.redis, queue, runId)) return undefined;
  return { runId, prepared, writtenAt: head.createdAt, deduplicated: true };
}

/**
 * Flags each unsettled parent of `runs` whose head does not say so yet as
 * having children (`hasChildren`, once a parent), before they are linked: the
 * append that settles a parent gives its children set its expiry only when
 * its head says it has one (docs/architecture/redis-layout.md#upgrading-to-flagged-blobs-and-children).
 * A settled parent's children set gets its TTL as it is linked instead.
 */
function flagParents(context: FireContext, runs: readonly LoggedRun[]): Promise<number>[] {
  const parents = new Set<string>();
  for (const { prepared } of runs) {
    const { parentRunId, parentSettled, parentHasChildren } = prepared;
    if (parentRunId !== undefined && !parentSettled && !parentHasChildren) parents.add(parentRunId);
  }
  return [...parents].map((parent) =>
    context.redis.hset(context.keys.runHead(parent), "hasChildren", "1"),
  );
}

/**
 * Adds the children among `runs` to their parents' pending children, one
 * SADD a parent (the collector counts each as it settles:
 * `collector/count-settled-children.ts`), kept for the store's retention
 * from the last link: a set whose children outlive it is gone, and its
 * parent's counts are then read the full way (`parents/children-counts.ts`).
 */
function addPendingChildren(context: FireContext, runs: readonly LoggedRun[]): Promise<unknown>[] {
  const byParent = new Map<string, string[]>();
  for (const { runId, prepared } of runs) {
    if (prepared.parentRunId !== undefined) addToGroup(byParent, prepared.parentRunId, runId);
  }
  const { redis, keys, store } = context;
  return [...byParent].flatMap(([parent, children]) => {
    const pending = keys.childrenPending(parent);
    return [redis.sadd(pending, ...children), redis.expire(pending, store.retentionSeconds)];
  });
}

/**
 * Links children to their parents (the children set of a parent that has
 * settled expires with the store's retention) and adds them to their
 * pending children, then enqueues one queue's runs in one `addBulk`.
 */
async function enqueueQueue(
  context: FireContext,
  queue: string,
  runs: readonly LoggedRun[],
): Promise<void> {
  const { redis, keys, queues, store } = context;
  // A batch without children (every fire of a run of its own) has nothing to link.
  if (runs.some(({ prepared }) => prepared.parentRunId !== undefined)) {
    // Sent first, on the connection the links go on (the parent's slot): a parent is flagged before it is linked.
    await Promise.all([
      ...flagParents(context, runs),
      ...addPendingChildren(context, runs),
      ...runs.flatMap(({ runId, prepared }) => {
        if (prepared.parentRunId === undefined) return [];
        const children = keys.children(prepared.parentRunId);
        const linked = redis.zadd(children, 0, runId);
        // A settled parent's children set got its TTL when it settled; one made after gets it here.
        if (!prepared.parentSettled) return [linked];
        return [linked, redis.expire(children, store.retentionSeconds)];
      }),
    ]);
  }
  // A batch without a concurrency key (every fire without one) has no fair priority to read.
  const fair =
    context.fairQueueing === false ||
    !runs.some(({ prepared }) => prepared.concurrencyKey !== undefined)
      ? undefined
      : await fairPriorities(
          redis,
          keys.prefix,
          // The two fields it reads, not a copy of the whole prepared run.
          runs.map(({ runId, prepared: { concurrencyKey, priority } }) => ({
            runId,
            concurrencyKey,
            priority,
          })),
        );
  const jobs: RunJob[] = runs.map(({ runId, prepared, queued }) => {
    const job: RunJob = { runId, agent: prepared.registration.name };
    const priority = prepared.priority ?? fair?.get(runId);
    if (priority !== undefined) job.priority = priority;
    if (queued !== undefined) job.queued = queued;
    return job;
  });
  await queues.add(queue, jobs);
}

/** A run this call wrote, and its place among the runs to fire. */
interface WrittenRun {
  index: number;
  run: LoggedRun;
}

function byQueue(written: readonly WrittenRun[]): Map<string, WrittenRun[]> {
  const groups = new Map<string, WrittenRun[]>();
  for (const entry of written) {
    addToGroup(groups, entry.run.prepared.registration.queue, entry);
  }
  return groups;
}

/**
 * Writes and enqueues `toFire`; one outcome per run, in order. The appends
 * are issued together (one pipeline on the auto-pipelined connection); each
 * queue gets one `addBulk`. Each run is a `send {queue}` span, a child of the
 * active context, stored in its `run-queued`.
 */
export async function enqueueRuns(
  context: FireContext,
  toFire: readonly PreparedRun[],
): Promise<FireOutcome[]> {
  const at = context.now();
  const runIds = toFire.map((prepared) => context.store.newRunId(prepared.idempotency?.key));
  const sends = toFire.map((prepared, index) =>
    startSendSpan(prepared.registration.queue, runIds[index]!),
  );
  const appended = await Promise.allSettled(
    toFire.map((prepared, index) =>
      writeQueued(context, runIds[index]!, prepared, at, sends[index]!),
    ),
  );
  const outcomes: FireOutcome[] = [];
  const written: WrittenRun[] = [];
  appended.forEach((result, index) => {
    if (result.status === "rejected") {
      outcomes[index] = { ok: false, error: asFireError(result.reason) };
    } else if ("prepared" in result.value) {
      written.push({ index, run: result.value });
    } else {
      outcomes[index] = result.value;
    }
  });
  const groups = byQueue(written);
  // One queue (every `fire`): its enqueue alone, without a `Promise.all` around it.
  const [lone] = groups;
  if (groups.size === 1) await enqueueGroup(context, lone![0], lone![1], outcomes);
  else {
    await Promise.all(
      Array.from(groups, ([queue, group]) => enqueueGroup(context, queue, group, outcomes)),
    );
  }
  const confirmed = await confirmedOnReplicas(context, outcomes);
  confirmed.forEach((outcome, index) => {
    endSendSpan(sends[index]!, outcome.ok ? undefined : outcome.error);
  });
  return confirmed;
}

/**
 * Enqueues the runs of `group` written for `queue`, setting their outcomes
 * (by their place, in `outcomes`): fired, or as `resolveUnenqueued` took back
 * or kept those whose jobs could not be enqueued.
 */
async function enqueueGroup(
  context: FireContext,
  queue: string,
  group: readonly WrittenRun[],
  outcomes: FireOutcome[],
): Promise<void> {
  const runs = group.map(({ run }) => run);
  try {
    // A job's id is its runId, so enqueuing again is safe: wait a moving cluster out
    // rather than take back a run whose log is written.
    await retryWhileRedisIsTransient(() => enqueueQueue(context, queue, runs), {
      logger: context.logger,
      write: "enqueue of written runs",
      fields: { queue },
      patienceMs: CLIENT_PATIENCE_MS,
      troubles: CLIENT_WAITS_OUT,
      target: context.target,
    });
    for (const { index, run } of group) {
      const { warnings } = run.prepared;
      outcomes[index] = run.deduplicated
        ? { ok: true, runId: run.runId, deduplicated: true }
        : warnings
          ? { ok: true, runId: run.runId, warnings }
          : { ok: true, runId: run.runId };
    }
  } catch (error) {
    const resolved = await resolveUnenqueued(context, queue, runs, error);
    group.forEach(({ index }, position) => {
      outcomes[index] = resolved[position]!;
    });
  }
}
