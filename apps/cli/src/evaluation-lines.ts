/**
 * How `errand eval` prints evaluations for people: the progress line while
 * one runs (on stderr), a list of evaluations, and one evaluation — its
 * totals, then its cases as a table, changed cases first.
 */
import type { Evaluation, EvaluationProgress, EvaluationSummary } from "@errand/engine";
import type { OutputStream } from "./io.js";
import { formatTable } from "./table.js";

function usd(value: number): string {
  return `$${value.toFixed(6)}`;
}

/** The progress of an evaluation: one line updated in place on a terminal, else a line per case. */
export function evaluationProgress(stream: OutputStream, silent: boolean) {
  let drawn = false;
  return {
    report(progress: EvaluationProgress): void {
      if (silent) return;
      const line = `${progress.done}/${progress.total} cases · ${progress.changed} changed · ${progress.failed} failed · ${usd(progress.costUsd)} so far`;
      if (stream.isTTY) {
        stream.write(`${drawn ? "\r\x1b[2K" : ""}${line}`);
        drawn = true;
        return;
      }
      const last = progress.lastCase;
      if (last === undefined) return;
      const what = last.failed ? "failed" : last.changed ? "changed" : "unchanged";
      stream.write(`${progress.done}/${progress.total} ${last.runId} ${what}\n`);
    },
    finish(): void {
      if (drawn) stream.write("\n");
    },
  };
}

/** The evaluations of a list page, as a table. */
export function evaluationListLines(items: readonly EvaluationSummary[]): string[] {
  const rows = items.map((e) => [
    e.evaluationId,
    `${e.candidate.agent}@${e.candidate.version}`,
    e.status,
    `${e.totals.cases}/${e.runIds.length}`,
    String(e.totals.changed),
    String(e.totals.failed),
    e.createdAt,
  ]);
  return formatTable([
    ["evaluation", "candidate", "status", "cases", "changed", "failed", "created"],
    ...rows,
  ]);
}

function mean(sum: number, count: number): string {
  return count === 0 ? "-" : (sum / count).toFixed(3);
}

/** One evaluation: what it evaluated, its totals, then a row per case, changed first. */
export function evaluationLines(evaluation: Evaluation): string[] {
  const { totals } = evaluation;
  const header = [
    `evaluation ${evaluation.evaluationId} (${evaluation.status})`,
    `candidate  ${evaluation.candidate.agent}@${evaluation.candidate.version}${evaluation.candidate.runsOn === "fleet" ? " on live workers" : ""}, tools ${evaluation.tools}, unrecorded calls ${evaluation.onUnrecorded}`,
    `cases      ${totals.cases} of ${evaluation.runIds.length} · ${totals.changed} changed · ${totals.failed} failed · ${totals.unrecordedCalls} unrecorded call(s)`,
    `cost       original ${usd(totals.original.costUsd)} · candidate ${usd(totals.candidate.costUsd)}`,
    `tokens     original ${totals.original.tokens} · candidate ${totals.candidate.tokens}`,
    `scores     ${Object.entries(totals.scores)
      .map(([name, sum]) => `${name} ${mean(sum, totals.cases)}`)
      .join(" · ")}`,
    "",
  ];
  const scorers = evaluation.scorers;
  const rows = evaluation.cases.map((c) => [
    c.runId,
    c.failed ? "failed" : c.changed ? "changed" : "same",
    `${c.original.status} → ${c.candidate.status}`,
    ...scorers.map((name) => c.scores.find((s) => s.scorer === name)?.score.toFixed(2) ?? "-"),
    `${usd(c.original.costUsd)} → ${usd(c.candidate.costUsd)}`,
    c.diff.map((d) => d.path).join(" ") || "",
  ]);
  return [
    ...header,
    ...formatTable([["run", "outcome", "status", ...scorers, "cost", "changed fields"], ...rows]),
  ];
}
