/**
 * `fireMany`: many runs in one call (docs/architecture/tool-results.md#the-result-vocabulary). Every spec is preflighted on
 * its own; the valid ones are written in one pipeline and enqueued with one
 * `addBulk` per queue. The answer is a batch, one result per spec in order,
 * so one bad spec never throws away the others.
 */
import { type BatchCounts, type BatchOutcome, ErrandError } from "@errand/core";
import { batch } from "@errand/core/ops";
import { CLIENT_PATIENCE_MS, CLIENT_WAITS_OUT } from "../redis/client-patience.js";
import { redisTroubleOf, retryWhileRedisIsTransient } from "../redis/transient-redis.js";
import { enqueueRuns } from "./enqueue-runs.js";
import type { FireContext, FireOutcome } from "./fire-context.js";
import { type PreflightLookups, type PreparedRun, preflightFire } from "./fire-preflight.js";
import { MAX_FIRE_MANY } from "./fire-spec.js";
import type { FireWarning } from "./fire-warnings.js";
import { createPreflightLookups } from "./preflight-lookups.js";
import { asFireError } from "./unenqueued-runs.js";

/**
 * One spec's result: its runId when fired (or when it failed after getting
 * one), `deduplicated` when its idempotency key named a run fired before
 * (whose runId it is), `warnings` when it was fired but waits (as
 * `FireResult`'s), and then its page on the dashboard when the client was
 * given a dashboard URL.
 */
export type FireManyItem = BatchOutcome & {
  runId?: string;
  deduplicated?: true;
  warnings?: FireWarning[];
  viewUrl?: string;
};

/** The answer of `fireMany`: `{ total, succeeded, failed, results }`, results in spec order. */
export type FireManyResult = BatchCounts & { results: FireManyItem[] };

function item(outcome: FireOutcome): FireManyItem {
  if (outcome.ok) {
    if (outcome.deduplicated) return { ok: true, runId: outcome.runId, deduplicated: true };
    return outcome.warnings
      ? { ok: true, runId: outcome.runId, warnings: outcome.warnings }
      : { ok: true, runId: outcome.runId };
  }
  const { code, message, retryable } = outcome.error;
  return {
    ok: false,
    ...(outcome.runId === undefined ? {} : { runId: outcome.runId }),
    error: { code, message },
    retryable,
  };
}

function checkSpecList(specs: unknown): asserts specs is unknown[] {
  if (!Array.isArray(specs)) {
    throw new ErrandError("invalid_spec", "fireMany takes an array of fire specs");
  }
  if (specs.length > MAX_FIRE_MANY) {
    throw new ErrandError(
      "invalid_spec",
      `fireMany takes at most ${MAX_FIRE_MANY} specs, not ${specs.length}; split the batch`,
      { details: { count: specs.length, max: MAX_FIRE_MANY } },
    );
  }
}

/** One spec after preflight: ready to fire, or refused with its error. */
export type CheckedSpec = { ok: true; prepared: PreparedRun } | { ok: false; error: ErrandError };

/**
 * Preflights every spec on its own, concurrently; one {@link CheckedSpec}
 * per spec, in order. `lookups` lets a caller share one call's lookups.
 */
export async function preflightEach(
  context: FireContext,
  specs: readonly unknown[],
  lookups: PreflightLookups = createPreflightLookups(context.redis, context.keys, context.store),
): Promise<CheckedSpec[]> {
  const checked = await Promise.allSettled(
    specs.map((spec) => preflightFire(spec, lookups, context)),
  );
  return checked.map((result) =>
    result.status === "fulfilled"
      ? { ok: true, prepared: result.value }
      : { ok: false, error: asFireError(result.reason) },
  );
}

/**
 * Fires the specs of `checked` that passed (see `enqueueRuns`); one outcome
 * per spec, in order, a refused spec keeping its error.
 */
export async function fireChecked(
  context: FireContext,
  checked: readonly CheckedSpec[],
): Promise<FireOutcome[]> {
  const toFire = checked.flatMap((spec) => (spec.ok ? [spec.prepared] : []));
  const fired = await enqueueRuns(context, toFire);
  let next = 0;
  return checked.map((spec): FireOutcome => (spec.ok ? fired[next++]! : spec));
}

/**
 * True when `outcome` failed for a Redis trouble `fire` waits out and left
 * nothing behind (no runId): firing its spec again is safe.
 */
function isWaitedOut(outcome: FireOutcome): boolean {
  if (outcome.ok || outcome.runId !== undefined) return false;
  const trouble = redisTroubleOf(outcome.error);
  return trouble !== undefined && CLIENT_WAITS_OUT.includes(trouble);
}

/**
 * Fires every valid spec of `specs`. Throws (`invalid_spec`) only when
 * `specs` is not an array or is longer than {@link MAX_FIRE_MANY}; every
 * per-spec refusal is a failed result with its code and `retryable`. Like
 * `fire`, waits out a Redis Cluster moving, a server loading or unable to
 * persist or a lost connection for {@link CLIENT_PATIENCE_MS}, firing again only the specs that
 * met one and left nothing behind; those still failing then keep their
 * `redis_unavailable` result.
 */
export async function fireMany(context: FireContext, specs: unknown): Promise<FireManyResult> {
  checkSpecList(specs);
  const outcomes: FireOutcome[] = [];
  let pending = specs.map((_, index) => index);
  await retryWhileRedisIsTransient(
    async () => {
      const checked = await preflightEach(
        context,
        pending.map((index) => specs[index]),
      );
      const fired = await fireChecked(context, checked);
      pending.forEach((index, at) => {
        outcomes[index] = fired[at]!;
      });
      pending = pending.filter((index) => isWaitedOut(outcomes[index]!));
      const waiting = outcomes[pending[0] ?? -1];
      if (waiting !== undefined && !waiting.ok) throw waiting.error;
    },
    {
      logger: context.logger,
      write: "fire of a batch of runs",
      patienceMs: CLIENT_PATIENCE_MS,
      troubles: CLIENT_WAITS_OUT,
      ...(context.target === undefined ? {} : { target: context.target }),
    },
  ).catch((error: unknown) => {
    // Patience ran out: the specs still waiting keep their own errors. Any
    // other throw, or one before every spec had an outcome, is the call's own.
    const everySpecAnswered = specs.every((_, index) => outcomes[index] !== undefined);
    if (!everySpecAnswered || redisTroubleOf(error) === undefined) throw error;
  });
  return batch(outcomes.map(item));
}
