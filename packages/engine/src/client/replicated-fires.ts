/**
 * A fire confirmed on a replica: with `durability: "replicated"`, the runs a
 * call fired (or found under their idempotency keys) are answered only once
 * a replica of their master has their `run-queued`, one `WAIT` per master
 * for the whole call (docs/architecture/redis-layout.md#durability). A run
 * whose master had no replica in time stays fired, on its master alone: it
 * runs unless its master fails over first. It is answered as an error with
 * its runId, so the call is not fired again under a new runId; firing it
 * again with the same idempotency key finds it and waits for it again.
 *
 * A wait that failed for a Redis trouble a client waits out (the master
 * failing over, its connection lost) is waited out, then the run looked for:
 * still there (the promoted replica had it), it is waited for again; gone
 * with its master, nothing of it is left, and the run is answered as not
 * fired, which `fire` and `fireMany` fire again under a new runId.
 */
import { ErrandError } from "@errand/core";
import { CLIENT_PATIENCE_MS, CLIENT_WAITS_OUT } from "../redis/client-patience.js";
import {
  redisTroubleOf,
  retryWhileRedisIsTransient,
  transientRedisError,
} from "../redis/transient-redis.js";
import type { FireContext, FireOutcome } from "./fire-context.js";

/** What a producer is told of a run lost with its master before a replica had it. */
const LOST =
  "the run was lost with its master, which failed over before a replica had it; nothing of it is left and firing it again is safe";

/** The error of run `runId`, fired but not confirmed on a replica because of `cause`. */
function notConfirmedError(runId: string, cause: Error): ErrandError {
  return new ErrandError(
    "redis_unavailable",
    `run ${runId} was fired but is not confirmed on a replica (${cause.message}): it runs, ` +
      "unless its master fails over before a replica has it. Fire it again with the same " +
      "idempotency key to confirm it (that answers this run, not a second one)",
    { retryable: true, cause, details: { runId } },
  );
}

/**
 * `fired` (a run answered as fired) once the trouble `cause` that failed its
 * wait is waited out: as it was when the run is still there and a replica
 * has it; not fired (no runId) when the run is gone; else not confirmed.
 */
async function confirmedAfterTrouble(
  context: FireContext,
  fired: FireOutcome & { ok: true },
  cause: Error,
): Promise<FireOutcome> {
  const { runId } = fired;
  try {
    const lost = await retryWhileRedisIsTransient(
      async () => {
        if ((await context.store.readHead(runId)) === undefined) return true;
        const failed = (await context.store.runsNotReplicated([runId])).get(runId);
        if (failed !== undefined) throw failed;
        return false;
      },
      {
        logger: context.logger,
        write: "confirmation of a fired run on a replica",
        fields: { runId },
        patienceMs: CLIENT_PATIENCE_MS,
        troubles: CLIENT_WAITS_OUT,
        target: context.target,
      },
    );
    return lost ? { ok: false, error: transientRedisError(LOST, cause, context.target) } : fired;
  } catch (error) {
    return { ok: false, runId, error: notConfirmedError(runId, error as Error) };
  }
}

/**
 * `outcomes` once their fired runs are confirmed on a replica: each run whose
 * master had none in time becomes an error with its runId (retryable
 * `redis_unavailable`); one whose wait met a trouble is as the module says.
 * `outcomes` itself when every run is confirmed, as with the default durability.
 */
export async function confirmedOnReplicas(
  context: FireContext,
  outcomes: FireOutcome[],
): Promise<FireOutcome[]> {
  const fired: string[] = [];
  for (const outcome of outcomes) if (outcome.ok) fired.push(outcome.runId);
  const notReplicated = await context.store.runsNotReplicated(fired);
  if (notReplicated.size === 0) return outcomes;
  return Promise.all(
    outcomes.map(async (outcome) => {
      const cause = outcome.ok ? notReplicated.get(outcome.runId) : undefined;
      if (!outcome.ok || cause === undefined) return outcome;
      const trouble = redisTroubleOf(cause);
      if (trouble !== undefined && CLIENT_WAITS_OUT.includes(trouble)) {
        return confirmedAfterTrouble(context, outcome, cause);
      }
      return { ok: false, runId: outcome.runId, error: notConfirmedError(outcome.runId, cause) };
    }),
  );
}
