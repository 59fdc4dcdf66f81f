/**
 * What `spawn_agents` does in the engine: fire one child of the calling run
 * per item, each item a fire spec whose parent is the caller. Every item is
 * preflighted on its own; the parent's depth and children limits refuse what
 * goes past them; each child is fired under an idempotency key of the call
 * and the item (see `spawn-keys.ts`), so a call run again after a crash
 * fires nothing twice. A child takes the parent's priority unless its item
 * gives one, and always the parent's concurrency key (a tenant's limit the
 * model cannot step out of).
 * The answer is a batch in item order, a bad item failing alone. A call
 * that a transient Redis error (out of memory, a cluster moving) cut short is
 * made again until it goes through (the idempotency keys make that safe), so
 * Redis being briefly away never costs a parent its children.
 */
import type { BatchCounts, BatchOutcome, ErrandError, NextAction } from "@errand/core";
import { batch, runNotFound } from "@errand/core/ops";
import type { FireBudget } from "../budgets/fire-budget.js";
import type { FireContext, FireOutcome } from "../client/fire-context.js";
import { fireChecked, preflightEach } from "../client/fire-many.js";
import { MAX_IDEMPOTENCY_TTL_MS } from "../client/fire-spec.js";
import { createPreflightLookups } from "../client/preflight-lookups.js";
import { COLLECT_TOOL } from "../reads/collect.js";
import { isTransientRedisError, retryWhileRedisIsTransient } from "../redis/transient-redis.js";
import { admitChildren, admitDepth, type ChildCount, type ParentLimits } from "./limits.js";
import { type SpawnCall, spawnIdempotencyKeys } from "./spawn-keys.js";

/** One child to spawn: a fire spec without its parent (the caller is the parent). */
export interface SpawnItem {
  agent: string;
  input?: unknown;
  outputSchema?: Record<string, unknown>;
  metadata?: Record<string, string>;
  deadlineMs?: number;
  /** The child's BullMQ priority; default the parent's. */
  priority?: number;
  /** A budget of the child's own, clamped to what the parent's has left; default: it spends from the parent's. */
  budget?: FireBudget;
}

/**
 * One item's outcome: its runId once fired, the agent it names, and the
 * child's page on the dashboard when the worker was given a dashboard URL.
 */
type SpawnedChild = BatchOutcome & { runId?: string; agent: string; viewUrl?: string };

/** The answer of `spawn_agents`: a batch in item order and, when children were fired, how to collect them. */
export type SpawnResult = BatchCounts & { results: SpawnedChild[]; nextAction?: NextAction };

/** Collecting every child, parked until they have settled: the call after a spawn. */
const COLLECT_CHILDREN_ACTION: NextAction = { tool: COLLECT_TOOL, args: { wait: true } };

function spawnedChild(item: SpawnItem, outcome: FireOutcome): SpawnedChild {
  const agent = item.agent;
  if (outcome.ok) return { ok: true, runId: outcome.runId, agent };
  const { code, message, retryable } = outcome.error;
  return {
    ok: false,
    ...(outcome.runId === undefined ? {} : { runId: outcome.runId }),
    agent,
    error: { code, message },
    retryable,
  };
}

/**
 * How many children the parent has besides this call's, and which of this
 * call's were fired already (by an earlier try: their keys name runs that
 * are among the parent's children).
 */
async function countChildren(
  context: FireContext,
  parentRunId: string,
  keys: readonly string[],
): Promise<ChildCount> {
  const children = context.keys.children(parentRunId);
  const [total, firedRunIds] = await Promise.all([
    context.redis.zcard(children),
    Promise.all(keys.map((key) => context.store.readIdempotencyKey(key))),
  ]);
  const known = firedRunIds.filter((runId) => runId !== undefined);
  const scores = known.length === 0 ? [] : await context.redis.zmscore(children, ...known);
  const member = new Map(known.map((runId, index) => [runId, scores[index] !== null]));
  const fired = firedRunIds.map((runId) => runId !== undefined && member.get(runId) === true);
  return { others: total - fired.filter(Boolean).length, fired };
}

/**
 * How long a child's key names it: as long as a settled run is kept (within
 * the longest TTL a fire takes), well past any resume of the parent's call.
 */
function spawnKeyTtlMs(context: FireContext): number {
  return Math.min(context.store.retentionSeconds * 1_000, MAX_IDEMPOTENCY_TTL_MS);
}

/**
 * Fires the children of `call` (one per item of `items`). Throws `not_found`
 * when the parent run does not exist; every other refusal is a failed item.
 * `refused` is the error of a child not fired for a transient Redis error.
 */
async function spawnChildren(
  context: FireContext,
  call: SpawnCall,
  items: readonly SpawnItem[],
  limits: ParentLimits,
): Promise<{ answer: SpawnResult; refused?: ErrandError }> {
  const { parentRunId } = call;
  const lookups = createPreflightLookups(context.redis, context.keys, context.store);
  const parent = await lookups.head(parentRunId);
  if (parent === undefined) {
    throw runNotFound(parentRunId, "parent run");
  }
  const keys = spawnIdempotencyKeys(call, items.length);
  const idempotencyTtlMs = spawnKeyTtlMs(context);
  const specs = items.map((item, index) => ({
    ...item,
    parentRunId,
    idempotencyKey: keys[index],
    idempotencyTtlMs,
  }));
  const checked = admitDepth(
    await preflightEach(context, specs, lookups),
    parentRunId,
    parent.depth,
    limits,
  );
  const count = await countChildren(context, parentRunId, keys);
  const admitted = admitChildren(checked, parentRunId, count, limits);
  const outcomes = await fireChecked(context, admitted);
  const [refused] = outcomes.flatMap((outcome) =>
    !outcome.ok && isTransientRedisError(outcome.error) ? [outcome.error] : [],
  );
  const answer = batch(outcomes.map((outcome, index) => spawnedChild(items[index]!, outcome)));
  return {
    answer: answer.succeeded > 0 ? { ...answer, nextAction: COLLECT_CHILDREN_ACTION } : answer,
    ...(refused ? { refused } : {}),
  };
}

/**
 * {@link spawnChildren}, made again while Redis fails transiently (out of
 * memory, unable to persist, a Redis Cluster moving, a server loading, a lost connection; see
 * `transient-redis.ts`): while the call throws for it, or a child is not
 * fired for it (docs/architecture/redis-errors.md#transient-redis-errors-are-not-outcomes). A parent is never answered that its
 * children failed because Redis was briefly away. The worker holds the parent
 * run meanwhile; the call's idempotency keys make each try answer with the
 * runs fired before, and a child already fired counts as fired. `signal` (the
 * run's, aborted at its timeout, deadline or cancel) ends the retries: the
 * call then throws the last error.
 */
export function spawnChildrenWhenRedisIsBack(
  context: FireContext,
  call: SpawnCall,
  items: readonly SpawnItem[],
  limits: ParentLimits,
  signal?: AbortSignal,
): Promise<SpawnResult> {
  return retryWhileRedisIsTransient(
    async () => {
      const { answer, refused } = await spawnChildren(context, call, items, limits);
      if (refused) throw refused;
      return answer;
    },
    {
      logger: context.logger,
      write: "spawn of the run's children",
      fields: { runId: call.parentRunId, callId: call.callId },
      ...(signal ? { signal } : {}),
    },
  );
}
