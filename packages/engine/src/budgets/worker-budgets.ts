/**
 * What a worker adds to a run's steps for budgets and costs
 * (docs/architecture/budgets.md#budgets): each response is priced by the
 * worker's price table; a run that counts against budgets is admitted
 * before each model request and debits each logged response right after
 * its append — on the tree root's slot, apart from the run's own fenced
 * append — except the append that settles the run, debited just before it,
 * so that a reader who sees the run settled sees its last step spent. A
 * debit is idempotent per run and step, so a new attempt first
 * debits whatever its log holds that the crashed one may not have, and
 * nothing twice. A debit that exhausts a `cancel-tree` budget cancels the
 * tree of the run that holds it.
 */
import {
  type BudgetScope,
  isTerminalEventType,
  type NewEvent,
  type RunBudget,
  type RunState,
} from "@errand/core";
import type { BudgetGate, EventSink, Logger, PriceResponse } from "@errand/runtime";
import { type PriceTable, responsePricer } from "./price-table.js";
import {
  admitRequest,
  type DebitedStep,
  debitSteps,
  type ExhaustedScope,
  type TreeBudgetContext,
} from "./tree-budget.js";

/** What a worker's runs need for budgets and costs. */
export interface WorkerBudgets extends TreeBudgetContext {
  /** The price table responses are priced by. */
  prices: PriceTable;
  /** Cancels run `runId` and its descendants: a `cancel-tree` budget ran out. */
  cancelTree(runId: string, reason: string): Promise<unknown>;
  logger: Logger;
}

/** What the run's steps are given: its sink (debiting when it has a budget), its gate and its pricer. */
export interface BudgetedSteps {
  sink: EventSink;
  budget?: BudgetGate;
  priceResponse?: PriceResponse;
}

function debitedStep({ step, usage, costUsd }: DebitedStep): DebitedStep {
  return { step, usage, ...(costUsd === undefined ? {} : { costUsd }) };
}

function loggedSteps(events: readonly NewEvent[]): DebitedStep[] {
  return events.flatMap((event) =>
    event.type === "model-responded" ? [debitedStep(event.data)] : [],
  );
}

function stepsOfState(state: RunState): DebitedStep[] {
  return [...state.steps].sort((a, b) => a.step - b.step).map(debitedStep);
}

/** Cancels the trees whose `cancel-tree` budgets `exhausted` names. */
async function cancelExhausted(
  budgets: WorkerBudgets,
  budget: RunBudget,
  exhausted: readonly ExhaustedScope[],
): Promise<void> {
  const byRunId = new Map<string, BudgetScope>(budget.scopes.map((scope) => [scope.runId, scope]));
  for (const { scopeRunId, dimension } of exhausted) {
    budgets.logger.info({ scopeRunId, dimension }, "budget exhausted");
    if (byRunId.get(scopeRunId)?.onExceeded !== "cancel-tree") continue;
    await budgets.cancelTree(scopeRunId, "budget_exceeded");
  }
}

/**
 * The budget parts of the steps of `state` (a run whose attempt just
 * started) on `model`, around `sink`. Debits, first, the responses its log
 * already holds (a no-op for those debited before).
 */
export async function budgetedSteps(
  budgets: WorkerBudgets,
  state: RunState,
  model: string,
  sink: EventSink,
): Promise<BudgetedSteps> {
  const priceResponse = responsePricer(budgets.prices, model);
  const priced = priceResponse === undefined ? {} : { priceResponse };
  const budget = state.queued?.budget;
  if (budget === undefined) return { sink, ...priced };
  const { runId } = state;
  const debit = async (steps: DebitedStep[]) =>
    cancelExhausted(budgets, budget, await debitSteps(budgets, runId, budget, steps));
  if (state.steps.length > 0) await debit(stepsOfState(state));
  return {
    ...priced,
    sink: {
      async append(appendRunId, expectedSeq, events) {
        const responses = loggedSteps(events);
        if (responses.length === 0) return sink.append(appendRunId, expectedSeq, events);
        if (!events.some((event) => isTerminalEventType(event.type))) {
          const written = await sink.append(appendRunId, expectedSeq, events);
          await debit(responses);
          return written;
        }
        // Debited first: once the run has settled, its tree's spend holds its last step.
        const exhausted = await debitSteps(budgets, runId, budget, responses);
        try {
          return await sink.append(appendRunId, expectedSeq, events);
        } finally {
          await cancelExhausted(budgets, budget, exhausted);
        }
      },
    },
    budget: { beforeRequest: () => admitRequest(budgets, runId, budget) },
  };
}
