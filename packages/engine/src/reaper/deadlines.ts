/**
 * Runs past their deadline. The collector keeps each shard's unsettled runs
 * with a `limits.deadlineAt` in `<p>:{sN}:deadlines` (score: the deadline in
 * ms). For every run whose deadline passed, the reaper appends `failed`
 * (`deadline_exceeded`, not retryable) unfenced, announces the runId on the
 * cancel channel so the worker holding it aborts its in-flight work, removes
 * its job if it is still waiting, and drops it from the deadlines.
 */
import type { RunError } from "@errand/core";
import { shardOfRunId } from "@errand/core/ops";
import { removeUnheldJob } from "../queues/run-jobs.js";
import { appendFailure } from "./append-failure.js";
import type { ReaperContext } from "./context.js";

function deadlineError(deadlineMs: number): RunError {
  return {
    code: "deadline_exceeded",
    message: `the run did not settle before its deadline ${new Date(deadlineMs).toISOString()}`,
    retryable: false,
  };
}

/** Removes the run's job when it is still waiting for a worker. */
export async function removeWaitingJob(context: ReaperContext, runId: string): Promise<void> {
  const head = await context.store.readHead(runId);
  if (head === undefined) return;
  const { redis, keys, queues } = context;
  await removeUnheldJob({ redis, keys, ofRun: queues.ofRun }, runId, head.agent);
}

/** What reaping one run did. */
type RunOutcome = "settled" | "done" | "error";

/**
 * Settles one run past its deadline. An error is logged and the run stays
 * among the deadlines, to be tried again on the next pass.
 */
async function reapRun(
  context: ReaperContext,
  runId: string,
  deadlineMs: number,
): Promise<RunOutcome> {
  const { store, redis, keys, now, logger } = context;
  const deadlineAt = new Date(deadlineMs).toISOString();
  try {
    const outcome = await appendFailure(
      store,
      runId,
      deadlineError(deadlineMs),
      now().toISOString(),
    );
    if (outcome === "settled") {
      await redis.publish(keys.cancelChannel, runId);
      await removeWaitingJob(context, runId);
      logger.info({ runId, deadlineAt }, "run past its deadline settled");
    }
    await redis.zrem(keys.deadlines(shardOfRunId(runId)), runId);
    return outcome === "settled" ? "settled" : "done";
  } catch (error) {
    logger.warn({ runId, deadlineAt, err: error }, "could not settle a run past its deadline");
    return "error";
  }
}

/**
 * Settles every run of `shard` past its deadline; resolves with how many this
 * call settled. A batch with a run that could not be settled ends the pass
 * for this shard (the next pass tries again).
 */
export async function reapDeadlines(context: ReaperContext, shard: number): Promise<number> {
  const { redis, keys, batchSize, now } = context;
  let settled = 0;
  for (;;) {
    const due = await redis.zrangebyscore(
      keys.deadlines(shard),
      "-inf",
      now().getTime(),
      "WITHSCORES",
      "LIMIT",
      0,
      batchSize,
    );
    const runs: [string, number][] = [];
    for (let i = 0; i + 1 < due.length; i += 2) runs.push([due[i]!, Number(due[i + 1])]);
    const outcomes = await Promise.all(runs.map(([runId, ms]) => reapRun(context, runId, ms)));
    settled += outcomes.filter((outcome) => outcome === "settled").length;
    if (runs.length < batchSize || outcomes.includes("error")) return settled;
  }
}

/** The earliest deadline still waiting on `shards`, in ms; undefined when none is. */
export async function earliestDeadline(
  context: ReaperContext,
  shards: readonly number[],
): Promise<number | undefined> {
  const firsts = await Promise.all(
    shards.map((shard) => context.redis.zrange(context.keys.deadlines(shard), 0, 0, "WITHSCORES")),
  );
  const scores = firsts.filter((first) => first.length === 2).map((first) => Number(first[1]));
  return scores.length === 0 ? undefined : Math.min(...scores);
}
