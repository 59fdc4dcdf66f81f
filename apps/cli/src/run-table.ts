/**
 * Settled runs as a table for people: one row per run with its status, its
 * output or error, and its steps, then the counts by status.
 */
import type { RunResult } from "@errand/core";
import { countStatuses, outcomeOf } from "./run-summary.js";
import { formatTable } from "./table.js";

/** The widest the output-or-error column gets. */
const OUTCOME_WIDTH = 64;

/** A row label and its run (the label is the first column: a name or the runId). */
export interface LabelledResult {
  label: string;
  result: RunResult;
}

/** The table of `rows` under a header whose first column is `labelHeader`. */
export function resultTable(labelHeader: string, rows: readonly LabelledResult[]): string[] {
  return formatTable(
    [
      [labelHeader, "status", "output or error", "steps"],
      ...rows.map(({ label, result }) => [
        label,
        result.status,
        outcomeOf(result),
        String(result.steps),
      ]),
    ],
    [undefined, undefined, OUTCOME_WIDTH],
  );
}

/** `12 runs: 9 succeeded, 2 failed, 1 cancelled`. */
export function countsLine(results: readonly RunResult[]): string {
  const counts = countStatuses(results);
  const runs = `${counts.total} run${counts.total === 1 ? "" : "s"}`;
  return `${runs}: ${counts.succeeded} succeeded, ${counts.failed} failed, ${counts.cancelled} cancelled`;
}
