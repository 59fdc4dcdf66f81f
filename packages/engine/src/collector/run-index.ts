/**
 * The run indexes `list` reads, kept up to date by the collector from the
 * events: every run of a shard, its runs by status and by agent, and each
 * parent's children. Every index is a ZSET with score 0 whose members are
 * `<createdAt ms, 15 digits>:<runId>`, so lexicographic order is creation
 * order and a list cursor is one member. Updating is idempotent: the shard's
 * indexes follow the run's head atomically, and a settled run's result is
 * stored by the same script call (see `lua/index-run-9.lua`).
 */
import { createdAtOfRunId, ErrandError, type RunResult, shardOfRunId } from "@errand/core";
import type { CollectorContext } from "./context.js";

const MEMBER_TIME_DIGITS = 15;

/** The index member of a run created at `createdAt` (ISO-8601; the runId's time when it is not one). */
export function runIndexMember(createdAt: string, runId: string): string {
  const parsed = Date.parse(createdAt);
  const ms = Number.isNaN(parsed) ? createdAtOfRunId(runId) : parsed;
  if (ms < 0 || ms >= 10 ** MEMBER_TIME_DIGITS) {
    throw new ErrandError("internal", `run ${runId}: createdAt ${createdAt} cannot be indexed`);
  }
  return `${String(ms).padStart(MEMBER_TIME_DIGITS, "0")}:${runId}`;
}

/** The runId of an index member. */
export function runIdOfIndexMember(member: string): string {
  return member.slice(MEMBER_TIME_DIGITS + 1);
}

/** What the indexes need to know about a run. */
export interface IndexedRun {
  runId: string;
  agent: string;
  /** `at` of its `run-queued`. */
  createdAt: string;
  parentRunId?: string;
  /** `limits.deadlineAt` of its `run-queued` (ISO-8601). */
  deadlineAt?: string;
}

/** The parent's children index gets `run` (in the parent's shard, so apart from the run's own indexes). */
export async function indexChild(context: CollectorContext, run: IndexedRun): Promise<void> {
  if (run.parentRunId === undefined) return;
  const { keys, redis, retentionSeconds } = context;
  const children = keys.childIndex(run.parentRunId);
  await Promise.all([
    redis.zadd(children, 0, runIndexMember(run.createdAt, run.runId)),
    redis.expire(children, retentionSeconds),
  ]);
}

/**
 * Brings the run's entries in its shard's indexes up to date with its head,
 * in one script call; given the settled run's `result`, the same call then
 * stores the result (once) and announces it on the shard's settled channel.
 * Resolves false when the run has no head (it expired, or never was): its
 * index entries are removed and no result is stored.
 */
export async function indexRun(
  context: CollectorContext,
  run: IndexedRun,
  result?: RunResult,
): Promise<boolean> {
  const { keys, scripts, retentionSeconds } = context;
  const shard = shardOfRunId(run.runId);
  const deadline = run.deadlineAt === undefined ? Number.NaN : Date.parse(run.deadlineAt);
  const reply = await scripts.indexRun(
    [
      keys.runHead(run.runId),
      keys.runIndex(shard),
      keys.runIndexByStatus(shard, "active"),
      keys.runIndexByStatus(shard, "succeeded"),
      keys.runIndexByStatus(shard, "failed"),
      keys.runIndexByStatus(shard, "cancelled"),
      keys.runIndexByAgent(shard, run.agent),
      keys.deadlines(shard),
      keys.result(run.runId),
    ],
    [
      run.runId,
      runIndexMember(run.createdAt, run.runId),
      Number.isNaN(deadline) ? "" : deadline,
      result === undefined ? "" : JSON.stringify(result),
      retentionSeconds,
      keys.settledChannel(shard),
    ],
  );
  return reply === 1;
}
