/**
 * An evaluation as JUnit XML, for CI: one `<testsuite>` named after the
 * candidate, one `<testcase>` per recorded run (class name the run's agent,
 * name its runId, time the candidate's latency). A case whose candidate did
 * not succeed is a `<failure>`; so is a changed case when `changedFails` is
 * set. Each case carries its scores as properties and its diff as output.
 */
import type { Evaluation, EvaluationCase } from "./evaluation-record.js";

/** Options of {@link evaluationJUnit}. */
export interface JUnitOptions {
  /** Report a changed case as a failure too (a gate that wants no change). Default false. */
  changedFails?: boolean;
}

function xmlEscape(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;")
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "");
}

function attributes(values: Record<string, string | number>): string {
  return Object.entries(values)
    .map(([name, value]) => ` ${name}="${xmlEscape(String(value))}"`)
    .join("");
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

function failureOf(evaluationCase: EvaluationCase, options: JUnitOptions): string | undefined {
  const { candidate } = evaluationCase;
  if (evaluationCase.failed) {
    const why = candidate.error
      ? `${candidate.error.code}: ${candidate.error.message}`
      : candidate.status;
    return `the candidate ${candidate.status} (${why})`;
  }
  if (evaluationCase.changed && options.changedFails) {
    return `the output changed in ${evaluationCase.diff.length} field(s)`;
  }
  return undefined;
}

function testcase(evaluationCase: EvaluationCase, options: JUnitOptions): string {
  const head = `    <testcase${attributes({
    classname: evaluationCase.agent,
    name: evaluationCase.runId,
    time: seconds(evaluationCase.candidate.latencyMs),
  })}>`;
  const properties = [
    { name: "changed", value: String(evaluationCase.changed) },
    { name: "original.costUsd", value: String(evaluationCase.original.costUsd) },
    { name: "candidate.costUsd", value: String(evaluationCase.candidate.costUsd) },
    ...evaluationCase.scores.map((s) => ({ name: `score.${s.scorer}`, value: String(s.score) })),
  ].map((p) => `        <property${attributes(p)}/>`);
  const failure = failureOf(evaluationCase, options);
  const diff = evaluationCase.diff.map(
    (c) => `${c.path}: ${JSON.stringify(c.original)} → ${JSON.stringify(c.candidate)}`,
  );
  return [
    head,
    "      <properties>",
    ...properties,
    "      </properties>",
    ...(failure === undefined
      ? []
      : [
          `      <failure${attributes({ message: failure, type: evaluationCase.changed ? "changed" : "failed" })}/>`,
        ]),
    ...(diff.length === 0 ? [] : [`      <system-out>${xmlEscape(diff.join("\n"))}</system-out>`]),
    "    </testcase>",
  ].join("\n");
}

/** `evaluation` as a JUnit XML document. */
export function evaluationJUnit(evaluation: Evaluation, options: JUnitOptions = {}): string {
  const { cases, candidate } = evaluation;
  const failures = cases.filter((c) => failureOf(c, options) !== undefined).length;
  const time = seconds(cases.reduce((sum, c) => sum + c.candidate.latencyMs, 0));
  const counts = { tests: cases.length, failures, errors: 0, skipped: 0, time };
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites${attributes({ name: `errand evaluation ${evaluation.evaluationId}`, ...counts })}>`,
    `  <testsuite${attributes({ name: `${candidate.agent}@${candidate.version}`, ...counts, timestamp: evaluation.createdAt })}>`,
    ...cases.map((c) => testcase(c, options)),
    "  </testsuite>",
    "</testsuites>",
    "",
  ].join("\n");
}
