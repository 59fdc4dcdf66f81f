/**
 * The budget a fire gives its run (docs/architecture/budgets.md#budgets). A run
 * fired with `budget` holds a budget of its own, counted against together
 * with its ancestors' budgets; a run fired without one counts against its
 * parent's. A child's own budget is clamped to what its ancestors' budgets
 * have left when it is fired: it may never promise more than remains.
 */
import { BUDGET_DIMENSIONS, BudgetLimits, BudgetPolicy, type RunBudget } from "@errand/core";
import { budgetRemaining, DEFAULT_BUDGET_POLICY } from "@errand/core/ops";
import { z } from "zod";
import { clampLimit, type ScopeSpend } from "./tree-budget.js";

/** The budget `fire` takes: limits (at least one) and, optionally, what exhausting it does. */
export const FireBudget = z
  .strictObject({
    ...BudgetLimits.shape,
    onExceeded: BudgetPolicy.optional(),
  })
  .refine((budget) => BUDGET_DIMENSIONS.some((dimension) => budget[dimension] !== undefined), {
    message: "a budget limits at least one of tokens, costUsd, steps, runs",
  });
export type FireBudget = z.infer<typeof FireBudget>;

/** What resolving a fire's budget reads: what each enclosing budget spent. */
export type ReadScopeSpend = (treeRunId: string, scopeRunId: string) => Promise<ScopeSpend>;

/** Makes the `run-queued.budget` of the run, once its runId is known; `undefined` for none. */
export type RunBudgetOf = (runId: string, rootRunId: string) => RunBudget | undefined;

/**
 * The budget of a run fired with `requested` (its own, if any) under a
 * parent whose run counts against `inherited` (if any).
 */
export async function resolveFireBudget(
  requested: FireBudget | undefined,
  inherited: RunBudget | undefined,
  readSpend: ReadScopeSpend,
): Promise<RunBudgetOf> {
  if (requested === undefined) return () => inherited;
  const { onExceeded = DEFAULT_BUDGET_POLICY, ...asked } = requested;
  const remainders =
    inherited === undefined
      ? []
      : await Promise.all(
          inherited.scopes.map(async (scope) =>
            budgetRemaining(
              scope.limits,
              (await readSpend(inherited.treeRunId, scope.runId)).spent,
            ),
          ),
        );
  const limits: BudgetLimits = {};
  for (const dimension of BUDGET_DIMENSIONS) {
    const limit = clampLimit(dimension, asked[dimension], remainders);
    if (limit !== undefined) limits[dimension] = limit;
  }
  return (runId, rootRunId) => ({
    treeRunId: inherited?.treeRunId ?? rootRunId,
    scopes: [...(inherited?.scopes ?? []), { runId, limits, onExceeded }],
  });
}
