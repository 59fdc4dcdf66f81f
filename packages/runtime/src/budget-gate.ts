/**
 * The two places the agent loop meets budgets (docs/architecture/budgets.md#budgets), kept apart from it: a gate asked before each model request, and
 * the price of each response, written on its `model-responded`. The engine
 * implements both on Redis; the runtime knows nothing of where budgets live.
 */
import type { Usage } from "@errand/core";

/** Asked before each model request of a run that counts against a budget. */
export interface BudgetGate {
  /**
   * Why the run must not make the request of `step` (a budget it counts
   * against is exhausted): the message of its `budget_exceeded` failure; or
   * `undefined` to go ahead.
   */
  beforeRequest(step: number): Promise<string | undefined>;
}

/** The cost in US dollars of a response with `usage`, or `undefined` for a model without a price. */
export type PriceResponse = (usage: Usage) => number | undefined;
