/**
 * A run tree's budgets on Redis (docs/architecture/budgets.md#budgets): one HASH
 * per tree on the root's slot (`<p>:{sN}:budget:<rootRunId>`), written only
 * by two scripts — `admit-budget-1.lua` before each model request,
 * `debit-budget-1.lua` after each logged response — and read here. A child
 * on another shard than its root calls them on the root's slot, apart from
 * its own fenced append.
 */
import {
  type BudgetDimension,
  type BudgetLimits,
  type BudgetSpent,
  ErrandError,
  type RunBudget,
  type Usage,
} from "@errand/core";
import { roundUsd } from "@errand/core/ops";
import { defineLuaCommand, type LuaCall, type LuaScript, readLuaFile } from "@errand/store/ops";
import type { EngineKeys } from "../engine-keys.js";
import type { RedisConnection } from "../redis/connection.js";

const NANO_PER_USD = 1e9;

function readScript(file: string): string {
  return readLuaFile(new URL(`../../lua/${file}`, import.meta.url));
}

const ADMIT: LuaScript = {
  command: "errandAdmitBudget",
  lua: readScript("admit-budget-1.lua"),
  numberOfKeys: 1,
};
const DEBIT: LuaScript = {
  command: "errandDebitBudget",
  lua: readScript("debit-budget-1.lua"),
  numberOfKeys: 1,
};

/** Where a tree's budgets are kept, and for how long after the last write. */
export interface TreeBudgetContext {
  redis: RedisConnection;
  keys: EngineKeys;
  /** The budget HASH's TTL, set again at each write: the retention of settled runs. */
  ttlMs: number;
}

/** One logged model response, as it is debited. */
export interface DebitedStep {
  step: number;
  usage: Usage;
  costUsd?: number;
}

/** A budget a debit exhausted: the run that holds it and what ran out. */
export interface ExhaustedScope {
  scopeRunId: string;
  dimension: BudgetDimension;
}

const scripts = new WeakMap<RedisConnection, { admit: LuaCall; debit: LuaCall }>();

function scriptsOn(redis: RedisConnection): { admit: LuaCall; debit: LuaCall } {
  let defined = scripts.get(redis);
  if (defined === undefined) {
    defined = { admit: defineLuaCommand(redis, ADMIT), debit: defineLuaCommand(redis, DEBIT) };
    scripts.set(redis, defined);
  }
  return defined;
}

const toNanoUsd = (usd: number): number => Math.round(usd * NANO_PER_USD);

/** The scripts' dimension names, by the core's. */
function dimensionOf(name: string): BudgetDimension {
  return name === "nanoUsd" ? "costUsd" : (name as BudgetDimension);
}

function limitArg(limit: number | undefined): string {
  return limit === undefined ? "" : String(limit);
}

/** The scopes as the scripts take them: their count, then five fields each. */
function scopeArgs(budget: RunBudget): string[] {
  return [
    String(budget.scopes.length),
    ...budget.scopes.flatMap(({ runId, limits }) => [
      runId,
      limitArg(limits.tokens),
      limitArg(limits.costUsd === undefined ? undefined : toNanoUsd(limits.costUsd)),
      limitArg(limits.steps),
      limitArg(limits.runs),
    ]),
  ];
}

/** The message of a run stopped by a budget. */
function exceededMessage(
  budget: RunBudget,
  scopeRunId: string,
  dimension: BudgetDimension,
): string {
  const limits = budget.scopes.find((scope) => scope.runId === scopeRunId)?.limits ?? {};
  const unit = dimension === "costUsd" ? "US dollars" : dimension;
  return `the budget of run ${scopeRunId} is exhausted: ${unit}, limit ${limits[dimension]}`;
}

function malformed(script: string, reply: unknown): ErrandError {
  return new ErrandError("internal", `the ${script} script returned ${JSON.stringify(reply)}`);
}

/**
 * Whether run `runId` may make its next model request: `undefined` when it
 * may, else the message of its `budget_exceeded` (a budget ran out, or it is
 * one run more than a `runs` limit allows). Its first admitted request
 * counts it in each `runs` limit.
 */
export async function admitRequest(
  context: TreeBudgetContext,
  runId: string,
  budget: RunBudget,
): Promise<string | undefined> {
  const reply = await scriptsOn(context.redis).admit(
    [context.keys.budget(budget.treeRunId)],
    [runId, context.ttlMs, ...scopeArgs(budget)],
  );
  if (!Array.isArray(reply)) throw malformed("admit-budget", reply);
  const [code, scopeRunId, dimension] = reply as [number, string?, string?];
  if (code === 0) return undefined;
  if (scopeRunId === undefined || dimension === undefined) throw malformed("admit-budget", reply);
  return exceededMessage(budget, scopeRunId, dimensionOf(dimension));
}

/**
 * Debits `steps` of run `runId` (in step order) from every budget it counts
 * against, each step once whatever the number of calls; resolves with the
 * budgets this call exhausted.
 */
export async function debitSteps(
  context: TreeBudgetContext,
  runId: string,
  budget: RunBudget,
  steps: readonly DebitedStep[],
): Promise<ExhaustedScope[]> {
  if (steps.length === 0) return [];
  const stepArgs = steps.flatMap(({ step, usage, costUsd }) => [
    step,
    usage.inputTokens + usage.outputTokens,
    toNanoUsd(costUsd ?? 0),
  ]);
  const reply = await scriptsOn(context.redis).debit(
    [context.keys.budget(budget.treeRunId)],
    [runId, context.ttlMs, ...scopeArgs(budget), ...stepArgs],
  );
  if (!Array.isArray(reply)) throw malformed("debit-budget", reply);
  const exhausted: ExhaustedScope[] = [];
  for (let i = 1; i + 1 < reply.length; i += 2) {
    exhausted.push({ scopeRunId: String(reply[i]), dimension: dimensionOf(String(reply[i + 1])) });
  }
  return exhausted;
}

/** What one budget's tree spent, live, and the dimension that exhausted it. */
export interface ScopeSpend {
  spent: BudgetSpent;
  exhausted?: BudgetDimension;
}

/** What the budget held by `scopeRunId` in tree `treeRunId` spent so far. */
export async function readScopeSpend(
  redis: RedisConnection,
  keys: EngineKeys,
  treeRunId: string,
  scopeRunId: string,
): Promise<ScopeSpend> {
  const fields = ["tokens", "nanoUsd", "steps", "runs", "exhausted"].map(
    (field) => `${scopeRunId}:${field}`,
  );
  const [tokens, nanoUsd, steps, runs, exhausted] = await redis.hmget(
    keys.budget(treeRunId),
    ...fields,
  );
  return {
    spent: {
      tokens: Number(tokens ?? 0),
      costUsd: roundUsd(Number(nanoUsd ?? 0) / NANO_PER_USD),
      steps: Number(steps ?? 0),
      runs: Number(runs ?? 0),
    },
    ...(exhausted === null || exhausted === undefined ? {} : { exhausted: dimensionOf(exhausted) }),
  };
}

/** The smallest of `limit` and every remaining amount of `dimension`: a sub-budget's clamp. */
export function clampLimit(
  dimension: BudgetDimension,
  limit: number | undefined,
  remainders: readonly BudgetLimits[],
): number | undefined {
  if (limit === undefined) return undefined;
  return remainders.reduce((least, remaining) => {
    const left = remaining[dimension];
    return left === undefined ? least : Math.min(least, left);
  }, limit);
}
