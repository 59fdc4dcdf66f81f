/**
 * Budgets across a run tree (docs/architecture/budgets.md#budgets): what a run
 * may spend, with its descendants, in tokens, US dollars, model responses
 * (steps) and runs. The limits of every budget a run counts against travel in
 * its `run-queued`, so a worker knows them without a lookup; what was spent
 * lives in one Redis hash on the tree root's slot.
 */
import { z } from "zod";

/** What a budget limits; each dimension is optional, and one left out is not limited. */
export const BudgetLimits = z.strictObject({
  /** Input plus output tokens of every model response. */
  tokens: z.number().int().nonnegative().optional(),
  /** US dollars, priced by the worker's price table. */
  costUsd: z.number().nonnegative().optional(),
  /** Model responses. */
  steps: z.number().int().nonnegative().optional(),
  /** Runs that may make a model request (the run that holds the budget included). */
  runs: z.number().int().nonnegative().optional(),
});
export type BudgetLimits = z.infer<typeof BudgetLimits>;

/** The dimensions of a budget, in the order they are checked and shown. */
export const BUDGET_DIMENSIONS = ["tokens", "costUsd", "steps", "runs"] as const;
export type BudgetDimension = (typeof BUDGET_DIMENSIONS)[number];

/**
 * What happens to the rest of the tree once a budget is exhausted. Either
 * way no run of it makes another model request (each fails
 * `budget_exceeded` before it would): `finish-in-flight` lets the requests
 * in flight end and their tool calls run; `cancel-tree` cancels the run
 * that holds the budget and its descendants at once (reason
 * `budget_exceeded`), aborting those requests.
 */
export const BudgetPolicy = z.enum(["finish-in-flight", "cancel-tree"]);
export type BudgetPolicy = z.infer<typeof BudgetPolicy>;

/** The policy of a budget fired without one. */
export const DEFAULT_BUDGET_POLICY: BudgetPolicy = "finish-in-flight";

/** One budget a run counts against: the run that holds it, its limits and its policy. */
export const BudgetScope = z.object({
  runId: z.string().min(1),
  limits: BudgetLimits,
  onExceeded: BudgetPolicy,
});
export type BudgetScope = z.infer<typeof BudgetScope>;

/**
 * The budgets a run counts against (`run-queued.budget`): `treeRunId` is the
 * root of the tree, whose slot holds what was spent; `scopes` go from the
 * outermost budget (nearest the root) to the innermost (the run's own, or
 * its nearest ancestor's).
 */
export const RunBudget = z.object({
  treeRunId: z.string().min(1),
  scopes: z.array(BudgetScope).min(1),
});
export type RunBudget = z.infer<typeof RunBudget>;

/** What a run or a tree spent, in each dimension. */
export interface BudgetSpent {
  tokens: number;
  costUsd: number;
  steps: number;
  /** Runs admitted to make a model request (a tree's figure; 1 or 0 for one run). */
  runs: number;
}

/** Dollars to the nano-dollar, the unit budgets count in: no float noise in what is shown. */
export function roundUsd(usd: number): number {
  return Math.round(usd * 1e9) / 1e9;
}

/** The innermost budget a run counts against: the one its result shows. */
export function innermostScope(budget: RunBudget): BudgetScope {
  return budget.scopes[budget.scopes.length - 1]!;
}

/** What is left of `limits` after `spent`, in each limited dimension (never below 0). */
export function budgetRemaining(limits: BudgetLimits, spent: BudgetSpent): BudgetLimits {
  const remaining: BudgetLimits = {};
  for (const dimension of BUDGET_DIMENSIONS) {
    const limit = limits[dimension];
    if (limit !== undefined) remaining[dimension] = roundUsd(Math.max(0, limit - spent[dimension]));
  }
  return remaining;
}
