/**
 * What the demo prints: for people, the children's table, the counts, the
 * parent's summary and the verdict; with `--json`, the parent's RunResult
 * and the children's.
 */
import type { RunResult } from "@errand/core";
import type { CliIO } from "../io.js";
import { writeLines } from "../output.js";
import { countsLine, resultTable } from "../run-table.js";
import { childLabel, type DemoOutcome } from "./driver.js";
import type { DemoVerdict } from "./verdict.js";

/** The `--json` document: `{ parent, children }`, children in plan order. */
export function demoJson(outcome: DemoOutcome): {
  parent: RunResult | null;
  children: RunResult[];
} {
  return {
    parent: outcome.parent ?? null,
    children: outcome.children.flatMap((child) => (child.result ? [child.result] : [])),
  };
}

function parentLine(outcome: DemoOutcome): string {
  const { parent } = outcome;
  if (parent === undefined) return `parent ${outcome.parentRunId}: not settled`;
  const what =
    parent.status === "succeeded"
      ? JSON.stringify(parent.output)
      : `${parent.error?.code ?? parent.status}: ${parent.error?.message ?? ""}`;
  return `parent ${parent.runId} ${parent.status}: ${what}`;
}

/** Prints the demo's outcome for people. */
export function printDemoReport(io: CliIO, outcome: DemoOutcome, verdict: DemoVerdict): void {
  const settled = outcome.children.flatMap((child) =>
    child.result ? [{ label: childLabel(child), result: child.result }] : [],
  );
  const verdictLines =
    verdict.problems.length === 0
      ? ["Every run settled as designed."]
      : ["Not as designed:", ...verdict.problems.map((problem) => `  - ${problem}`)];
  writeLines(io, [
    ...resultTable("child", settled),
    "",
    countsLine(settled.map((row) => row.result)),
    parentLine(outcome),
    "",
    ...verdictLines,
  ]);
}
