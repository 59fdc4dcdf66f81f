/**
 * The evaluations (docs/guide/evaluations.md): a list, newest first, and
 * one evaluation — its candidate and where its runs ran (`runsOn`: the
 * evaluating process, or live workers of the candidate's version), its
 * totals, then each case side by side, the original
 * run beside the candidate (output, tool calls, cost, tokens, steps,
 * latency), the changed cases first as the API orders them.
 */
import {
  type Evaluation,
  type EvaluationCase,
  type EvaluationSummary,
  listEvaluations,
  readEvaluation,
} from "../api.js";
import { facts, jsonBlock } from "../components/json-view.js";
import { statusBadge } from "../components/status.js";
import { type Child, h, link, replaceChildren } from "../dom.js";
import { formatAgo, formatCount, formatDateTime, formatDuration, formatUsd } from "../format.js";
import type { Mounted } from "../router.js";

function errorPanel(main: HTMLElement, title: string, error: unknown): void {
  replaceChildren(
    main,
    h("h1", {}, title),
    h("p", { class: "error-text" }, (error as Error).message),
  );
}

/**
 * Where the candidate's runs ran: on live workers of its version (`fleet`),
 * or in the process that evaluated (`process`; also a record from before
 * `runsOn` was recorded).
 */
function runsOnText(e: EvaluationSummary): string {
  return e.candidate.runsOn === "fleet" ? "live workers" : "the evaluating process";
}

function listRow(e: EvaluationSummary): HTMLTableRowElement {
  return h(
    "tr",
    { testid: "evaluation-row", attrs: { "data-evaluation-id": e.evaluationId } },
    h("td", {}, link(`/evaluations/${e.evaluationId}`, { class: "mono" }, e.evaluationId)),
    h("td", {}, `${e.candidate.agent}@${e.candidate.version}`),
    h("td", { testid: "evaluation-runs-on" }, runsOnText(e)),
    h("td", {}, e.status),
    h("td", { class: "num" }, `${e.totals.cases}/${e.runIds.length}`),
    h("td", { class: "num" }, formatCount(e.totals.changed)),
    h("td", { class: "num" }, formatCount(e.totals.failed)),
    h("td", { class: "num" }, formatUsd(e.totals.candidate.costUsd)),
    h("td", { title: formatDateTime(e.createdAt) }, formatAgo(e.createdAt)),
  );
}

/** Mounts the list of evaluations into `main`. */
export function showEvaluations(main: HTMLElement): Mounted {
  replaceChildren(main, h("h1", {}, "Evaluations"), h("p", { class: "muted" }, "Loading…"));
  listEvaluations()
    .then((page) => {
      const head = [
        "evaluation",
        "candidate",
        "runs on",
        "status",
        "cases",
        "changed",
        "failed",
        "candidate cost",
        "created",
      ];
      const rows =
        page.items.length === 0
          ? [
              h(
                "tr",
                {},
                h(
                  "td",
                  { class: "empty", attrs: { colspan: String(head.length) } },
                  "No evaluation yet: errand eval run makes one.",
                ),
              ),
            ]
          : page.items.map(listRow);
      replaceChildren(
        main,
        h("h1", {}, "Evaluations"),
        h(
          "section",
          { class: "panel flush" },
          h(
            "table",
            { class: "table" },
            h(
              "thead",
              {},
              h(
                "tr",
                {},
                head.map((label) => h("th", {}, label)),
              ),
            ),
            h("tbody", {}, rows),
          ),
        ),
      );
    })
    .catch((error) => errorPanel(main, "Evaluations", error));
  return undefined;
}

function outcomeTag(c: EvaluationCase): HTMLElement {
  if (c.failed) return h("span", { class: "tag bad", testid: "case-outcome" }, "failed");
  if (c.changed) return h("span", { class: "tag warn", testid: "case-outcome" }, "changed");
  return h("span", { class: "tag", testid: "case-outcome" }, "same");
}

function answerOf(side: EvaluationCase["original"]): unknown {
  return side.output !== undefined ? side.output : (side.text ?? side.error ?? null);
}

function toolCallsList(calls: EvaluationCase["toolCalls"]["original"], testid: string): Child {
  if (calls.length === 0) return h("p", { class: "muted small" }, "no tool calls");
  return h(
    "ul",
    { class: "eval-calls", testid },
    calls.map((call) =>
      h(
        "li",
        {},
        h("span", { class: "mono" }, `${call.tool}(${JSON.stringify(call.args)})`),
        " → ",
        call.ok
          ? h("span", { class: "mono" }, JSON.stringify(call.result))
          : h("span", { class: "error-text" }, call.error ?? "failed"),
        call.answeredFrom === undefined ? null : h("span", { class: "chip" }, call.answeredFrom),
      ),
    ),
  );
}

function side(title: string, c: EvaluationCase, which: "original" | "candidate"): HTMLElement {
  const s = c[which];
  return h(
    "div",
    { class: "eval-side", testid: `case-${which}` },
    h("h3", {}, title, " ", statusBadge(s.status)),
    jsonBlock(answerOf(s), { label: "output" }),
    facts([
      ["cost", formatUsd(s.costUsd)],
      ["tokens", formatCount(s.tokens)],
      ["steps", formatCount(s.steps)],
      ["latency", formatDuration(s.latencyMs)],
    ]),
    toolCallsList(c.toolCalls[which], `case-${which}-calls`),
  );
}

function caseCard(c: EvaluationCase): HTMLElement {
  const scores = c.scores.map((s) =>
    h("span", { class: "chip", title: s.note ?? "" }, `${s.scorer} ${s.score.toFixed(2)}`),
  );
  const diff =
    c.diff.length === 0
      ? null
      : h(
          "ul",
          { class: "eval-diff", testid: "case-diff" },
          c.diff.map((d) =>
            h(
              "li",
              { class: "mono" },
              `${d.path}: ${JSON.stringify(d.original)} → ${JSON.stringify(d.candidate)}`,
            ),
          ),
        );
  const unrecorded =
    c.unrecordedCalls.length === 0
      ? null
      : h(
          "p",
          { class: "warning-text" },
          `${c.unrecordedCalls.length} unrecorded call(s): ${c.unrecordedCalls.map((u) => `${u.tool} (${u.policy})`).join(", ")}`,
        );
  return h(
    "section",
    {
      class: "panel eval-case",
      testid: "evaluation-case",
      attrs: { "data-run-id": c.runId, "data-changed": String(c.changed) },
    },
    h(
      "div",
      { class: "eval-case-head" },
      outcomeTag(c),
      " ",
      link(`/runs/${c.runId}`, { class: "mono" }, c.runId),
      " ",
      h("span", { class: "chips" }, scores),
    ),
    diff,
    unrecorded,
    h(
      "div",
      { class: "eval-sides" },
      side("original", c, "original"),
      side("candidate", c, "candidate"),
    ),
  );
}

function totalsOf(e: Evaluation): HTMLElement {
  const t = e.totals;
  const mean = (sum: number) => (t.cases === 0 ? "—" : (sum / t.cases).toFixed(2));
  return facts([
    ["candidate", `${e.candidate.agent}@${e.candidate.version}`],
    ["runs on", runsOnText(e)],
    ["status", e.status],
    ["cases", `${t.cases} of ${e.runIds.length}`],
    ["changed", formatCount(t.changed)],
    ["failed", formatCount(t.failed)],
    ["tools", `${e.tools} (unrecorded: ${e.onUnrecorded}, ${t.unrecordedCalls} call(s))`],
    ["cost", `${formatUsd(t.original.costUsd)} → ${formatUsd(t.candidate.costUsd)}`],
    ["tokens", `${formatCount(t.original.tokens)} → ${formatCount(t.candidate.tokens)}`],
    [
      "scores",
      Object.entries(t.scores)
        .map(([name, sum]) => `${name} ${mean(sum)}`)
        .join(" · "),
    ],
  ]);
}

/** Mounts evaluation `evaluationId` into `main`. */
export function showEvaluation(main: HTMLElement, evaluationId: string): Mounted {
  replaceChildren(
    main,
    h("h1", {}, `Evaluation ${evaluationId}`),
    h("p", { class: "muted" }, "Loading…"),
  );
  readEvaluation(evaluationId)
    .then((evaluation) => {
      replaceChildren(
        main,
        h("h1", {}, "Evaluation ", h("span", { class: "mono" }, evaluationId)),
        h("section", { class: "panel", testid: "evaluation-totals" }, totalsOf(evaluation)),
        evaluation.cases.map(caseCard),
      );
    })
    .catch((error) => errorPanel(main, `Evaluation ${evaluationId}`, error));
  return undefined;
}
