/**
 * One run for people: its fields as aligned `name  value` lines.
 */
import type { BudgetLimits, BudgetSpent, RunBudgetView, RunSoFar } from "@errand/core";
import { jsonText } from "./output.js";
import { formatTable } from "./table.js";

const VALUE_WIDTH = 200;

/**
 * What is known of a run: its result once settled, or the same fields so
 * far; `viewUrl` when a dashboard URL is configured.
 */
export type ShownRun = RunSoFar & { viewUrl?: string };

/** `spent` in each dimension `limits` bound (tokens, costUsd, steps, runs), as `tokens 1200, costUsd 0.03`. */
function amounts(values: Partial<BudgetSpent> | BudgetLimits, only?: BudgetLimits): string {
  const shown = Object.entries(values).filter(
    ([dimension]) => only === undefined || dimension in only,
  );
  return shown.map(([dimension, value]) => `${dimension} ${value}`).join(", ");
}

/** The budget rows: the limits, what the run spent, and what its budget's tree spent and has left. */
function budgetRows(budget: RunBudgetView | undefined): [string, string | undefined][] {
  if (budget === undefined) return [];
  const { limits, onExceeded, run, tree, scopeRunId } = budget;
  return [
    ["budget", `${amounts(limits)} (${onExceeded}, held by ${scopeRunId})`],
    ["run spent", amounts(run, limits)],
    ["tree spent", tree && amounts(tree.spent, limits)],
    [
      "remaining",
      tree &&
        `${amounts(tree.remaining)}${tree.exhausted ? ` (exhausted: ${tree.exhausted})` : ""}`,
    ],
  ];
}

/** The lines describing `run`. */
export function runDetails(run: ShownRun): string[] {
  const rows: [string, string | undefined][] = [
    ["run", run.runId],
    ["agent", run.agent],
    ["status", run.status],
    ["waiting", run.waiting && `${run.waiting.reason} (parked since ${run.waiting.since})`],
    ["output", run.output === undefined ? undefined : jsonText(run.output)],
    ["text", run.text],
    ["error", run.error && `${run.error.code}: ${run.error.message}`],
    ["parent", run.parentRunId],
    ["root", run.rootRunId === run.runId ? undefined : run.rootRunId],
    ["steps", String(run.steps)],
    ["attempts", String(run.attempts)],
    ["usage", `${run.usage.inputTokens} input + ${run.usage.outputTokens} output tokens`],
    ["cost", run.costUsd === undefined ? undefined : `$${run.costUsd}`],
    ...budgetRows(run.budget),
    ["created", run.createdAt],
    ["started", run.startedAt],
    ["settled", run.settledAt],
    ["view", run.viewUrl],
  ];
  const shown = rows.filter((row): row is [string, string] => row[1] !== undefined);
  return formatTable(shown, [undefined, VALUE_WIDTH]);
}
