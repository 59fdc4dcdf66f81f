/**
 * The run indexes `list` reads, kept up to date by the collector from the
 * events: every run of a shard, its runs by status and by agent, and each
 * parent's children. Every index is a ZSET with score 0 whose members are
 * `<createdAt ms, 15 digits>:<runId>`, so lexicographic order is creation
 * order and a list cursor is one member. Updating is idempotent: the shard's
 * indexes follow the run's head atomically (see `lua/index-run-8.lua`).
 */
import { createdAtOfRunId, ErrandError, shardOfRunId } from "@errand/core";
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

/**
 * Brings the run's index entries up to date with its head: its shard's
 * indexes and deadlines in one script call, and its parent's children index.
 */
export async function indexRun(context: CollectorContext, run: IndexedRun): Promise<void> {
  const { keys, redis, scripts, retentionSeconds } = context;
  const shard = shardOfRunId(run.runId);
  const member = runIndexMember(run.createdAt, run.runId);
  const deadline = run.deadlineAt === undefined ? Number.NaN : Date.parse(run.deadlineAt);
  const writes: Promise<unknown>[] = [
    scripts.indexRun(
      [
        keys.runHead(run.runId),
        keys.runIndex(shard),
        keys.runIndexByStatus(shard, "active"),
        keys.runIndexByStatus(shard, "succeeded"),
        keys.runIndexByStatus(shard, "failed"),
        keys.runIndexByStatus(shard, "cancelled"),
        keys.runIndexByAgent(shard, run.agent),
        keys.deadlines(shard),
      ],
      [run.runId, member, Number.isNaN(deadline) ? "" : deadline],
    ),
  ];
  if (run.parentRunId !== undefined) {
    const children = keys.childIndex(run.parentRunId);
    writes.push(redis.zadd(children, 0, member), redis.expire(children, retentionSeconds));
  }
  await Promise.all(writes);
}
