/**
 * A run's budget as readers show it: what its log says it spent (folded
 * into `RunResult.budget`), plus what the whole budget it counts against
 * spent and has left, read live from the tree's budget HASH — a settled
 * run's tree may still be spending.
 */
import type { RunBudgetView } from "@errand/core";
import { budgetRemaining } from "@errand/core/ops";
import type { EngineKeys } from "../engine-keys.js";
import type { RedisConnection } from "../redis/connection.js";
import { readScopeSpend } from "./tree-budget.js";

/** A run as readers return it: its tree root, and its budget when it counts against one. */
interface BudgetedRun {
  rootRunId: string;
  budget?: RunBudgetView;
}

/** `run` with `budget.tree` read live; `run` itself when it has no budget. */
export async function withTreeSpend<T extends BudgetedRun>(
  redis: RedisConnection,
  keys: EngineKeys,
  run: T,
): Promise<T> {
  const { budget } = run;
  if (budget === undefined) return run;
  // A tree's budgets are kept on its root's slot: treeRunId is the run's rootRunId.
  const { spent, exhausted } = await readScopeSpend(redis, keys, run.rootRunId, budget.scopeRunId);
  const tree = {
    spent,
    remaining: budgetRemaining(budget.limits, spent),
    ...(exhausted === undefined ? {} : { exhausted }),
  };
  return { ...run, budget: { ...budget, tree } };
}
