/**
 * One run: its status and result, where its time went (the waterfall, and
 * what it waits on while it runs), its timeline step by step, the tree it
 * belongs to, what it was fired with, and the actions (cancel, replay, and
 * answering the waitpoint it waits on). Events arrive live through the run's
 * stream, and the waterfall is read again after them; the tree is read again
 * when the overview says something changed.
 */
import {
  ApiError,
  cancelRun,
  followDeltas,
  followRun,
  loadSession,
  type RunDetail,
  type RunView,
  readFullEvent,
  readRun,
  readTimeline,
  readTree,
  readWaterfall,
  replayRun,
} from "../api.js";
import { answerForm } from "../components/answer-form.js";
import { confirmAction } from "../components/confirm.js";
import { facts, jsonBlock } from "../components/json-view.js";
import { LiveText } from "../components/live-text.js";
import { runTree } from "../components/run-tree.js";
import { statusBadge } from "../components/status.js";
import { Timeline } from "../components/timeline.js";
import { waitingOnText, waterfallChart } from "../components/waterfall.js";
import { debounced } from "../debounce.js";
import { h, link, replaceChildren } from "../dom.js";
import { formatCount, formatDateTime, formatSpan, formatUsd, shortRunId } from "../format.js";
import { listenToOverview } from "../live-overview.js";
import type { Mounted } from "../router.js";
import { toast } from "./toast.js";

const isSettled = (run: RunView) => run.status !== "queued" && run.status !== "running";

function runLink(runId: string | undefined) {
  return runId === undefined
    ? undefined
    : link(`/runs/${runId}`, { class: "mono", title: runId }, shortRunId(runId));
}

/** The status, and what a parked run waits for. */
function statusFact(run: RunView) {
  if (run.waiting === undefined) return statusBadge(run.status);
  return h(
    "span",
    {},
    statusBadge(run.status),
    h(
      "span",
      { class: "muted", testid: "run-waiting" },
      ` parked: ${run.waiting.reason} (since ${formatDateTime(run.waiting.since)})`,
    ),
  );
}

/** `values` in each dimension they hold, dollars as dollars: `tokens 1,200 · costUsd $0.03`. */
function amounts(values: Partial<Record<string, number>>): string {
  return Object.entries(values)
    .map(([dimension, value = 0]) =>
      dimension === "costUsd" ? `cost ${formatUsd(value)}` : `${dimension} ${formatCount(value)}`,
    )
    .join(" · ");
}

/** Only the dimensions `limits` bound, of `values`. */
function bound(values: Record<string, number>, limits: Record<string, number | undefined>) {
  return Object.fromEntries(Object.entries(values).filter(([dimension]) => dimension in limits));
}

/** The run's budget: its limits, what the run spent, what its tree spent and has left. */
function budgetFacts(run: RunView): [string, string | undefined][] {
  const { budget } = run;
  if (budget === undefined) return [];
  const { limits, onExceeded, tree } = budget;
  return [
    ["budget", `${amounts(limits)} (${onExceeded})`],
    ["run spent", amounts(bound(budget.run, limits))],
    ["tree spent", tree && amounts(bound(tree.spent, limits))],
    [
      "tree left",
      tree &&
        `${amounts(tree.remaining)}${tree.exhausted ? ` — exhausted (${tree.exhausted})` : ""}`,
    ],
  ];
}

function detailFacts(run: RunView, detail: RunDetail) {
  return facts([
    ["status", statusFact(run)],
    ["agent", run.agent],
    ["parent", runLink(run.parentRunId)],
    ["root", run.rootRunId === run.runId ? undefined : runLink(run.rootRunId)],
    ["attempts", String(run.attempts)],
    ["steps", String(run.steps)],
    [
      "tokens",
      `${formatCount(run.usage.inputTokens)} in · ${formatCount(run.usage.outputTokens)} out`,
    ],
    ["cost", run.costUsd === undefined ? undefined : formatUsd(run.costUsd)],
    ...budgetFacts(run),
    ["created", formatDateTime(run.createdAt)],
    ["started", run.startedAt === undefined ? undefined : formatDateTime(run.startedAt)],
    ["settled", run.settledAt === undefined ? undefined : formatDateTime(run.settledAt)],
    ["took", run.startedAt === undefined ? undefined : formatSpan(run.startedAt, run.settledAt)],
    ["worker", detail.workerId],
    [
      "deadline",
      detail.definition.limits.deadlineAt === undefined
        ? undefined
        : formatDateTime(detail.definition.limits.deadlineAt),
    ],
    ["max steps", String(detail.definition.limits.maxSteps)],
  ]);
}

function resultPanel(run: RunView): HTMLElement {
  const body =
    run.error !== undefined
      ? h(
          "div",
          { class: `result-error result-${run.status}`, testid: "run-error" },
          h("span", { class: "tag bad" }, run.error.code),
          ` ${run.error.message}`,
          run.error.retryable ? h("span", { class: "muted" }, " (retryable)") : null,
        )
      : run.output !== undefined
        ? jsonBlock(run.output, { label: "output" })
        : run.text !== undefined
          ? h("blockquote", { class: "model-text" }, run.text)
          : h("p", { class: "muted" }, isSettled(run) ? "No output." : "Not settled yet.");
  const closing =
    run.error !== undefined && run.text !== undefined
      ? h("blockquote", { class: "model-text" }, run.text)
      : null;
  return h("div", { testid: "run-result" }, body, closing);
}

/** Mounts the view of run `runId` into `main`. */
export function showRun(main: HTMLElement, runId: string): Mounted {
  replaceChildren(main, h("p", { class: "muted" }, "Loading…"));
  let stream: EventSource | undefined;
  let deltas: EventSource | undefined;
  let stopOverview: (() => void) | undefined;
  let stopped = false;

  async function mount(): Promise<void> {
    const [detail, events, session] = await Promise.all([
      readRun(runId),
      readTimeline(runId),
      loadSession(),
    ]);
    if (stopped) return;
    let run = detail.run;
    const timeline = new Timeline(runId, run.createdAt);
    for (const event of events) timeline.add(event);
    const status = h("span", { testid: "run-status-holder" });
    const followState = h("span", { class: "muted small", testid: "follow-state" });
    const factsHolder = h("div", {});
    const resultHolder = h("div", {});
    const treeHolder = h("div", {}, h("p", { class: "muted" }, "Loading…"));
    const answerHolder = h("div", {});
    const liveText = new LiveText();
    let answering: string | undefined;
    const waterfallHolder = h("div", {}, h("p", { class: "muted" }, "Loading…"));
    const cancel = h("button", { class: "button danger", testid: "cancel-button" }, "Cancel run");
    const replay = h("button", { class: "button", testid: "replay-button" }, "Replay");
    for (const button of [cancel, replay]) {
      if (session.readOnly) {
        button.disabled = true;
        button.title = "This dashboard is read-only.";
      }
    }

    const update = (next: RunView) => {
      run = next;
      replaceChildren(status, statusBadge(run.status, "run-status"));
      replaceChildren(factsHolder, detailFacts(run, detail));
      replaceChildren(resultHolder, resultPanel(run));
      cancel.hidden = isSettled(run);
      // The form is made once per waitpoint, so live events never wipe an answer being typed.
      const waitpoint = isSettled(run) ? undefined : run.waiting?.waitpoint;
      if (waitpoint?.token !== answering) {
        answering = waitpoint?.token;
        replaceChildren(
          answerHolder,
          waitpoint === undefined ? null : answerForm(runId, waitpoint, session.readOnly),
        );
      }
      followState.textContent = isSettled(run) ? "settled" : "● live";
      followState.className = isSettled(run) ? "muted small" : "live small";
    };

    const refreshTree = debounced(async () => {
      try {
        replaceChildren(treeHolder, runTree(await readTree(runId)));
      } catch (error) {
        replaceChildren(treeHolder, h("p", { class: "error-text" }, (error as Error).message));
      }
    });

    const refreshWaterfall = debounced(async () => {
      try {
        const waterfall = await readWaterfall(runId);
        replaceChildren(
          waterfallHolder,
          waterfall.waitingOn === undefined
            ? null
            : h(
                "p",
                { class: "waiting-on", testid: "waiting-on" },
                `Waiting on ${waitingOnText(waterfall.waitingOn)}`,
              ),
          waterfallChart(waterfall),
        );
      } catch (error) {
        replaceChildren(waterfallHolder, h("p", { class: "error-text" }, (error as Error).message));
      }
    });

    cancel.addEventListener("click", async () => {
      const answer = await confirmAction({
        title: "Cancel this run?",
        message: `The worker holding ${runId} aborts it and it settles as cancelled. This cannot be undone.`,
        confirmLabel: "Cancel run",
        checkbox: "Also cancel every run it started (cascade)",
        danger: true,
      });
      if (answer === undefined) return;
      try {
        const result = await cancelRun(runId, answer.checked);
        const reached = result.descendants?.length ?? 0;
        toast(
          result.requested
            ? `Cancel requested${reached ? ` (and ${reached} descendants)` : ""}.`
            : `Already ${result.status}.`,
        );
      } catch (error) {
        toast(error instanceof ApiError ? error.message : String(error), true);
      }
    });
    replay.addEventListener("click", async () => {
      const answer = await confirmAction({
        title: "Replay this run?",
        message: `Fires ${run.agent} again with the same input, output schema and metadata, as a new run of its own.`,
        confirmLabel: "Replay",
      });
      if (answer === undefined) return;
      try {
        const fired = await replayRun(runId);
        location.hash = `/runs/${fired.runId}`;
      } catch (error) {
        toast(error instanceof ApiError ? error.message : String(error), true);
      }
    });

    const definition = detail.definition;
    const metadata = Object.entries(definition.metadata);
    replaceChildren(
      main,
      h(
        "div",
        { class: "run-header" },
        h(
          "div",
          {},
          h("div", { class: "crumbs" }, link("/runs", {}, "Runs"), " / ", run.agent),
          h("h1", { class: "mono run-id", testid: "run-id" }, runId),
          h(
            "div",
            { class: "run-subtitle" },
            status,
            h("span", { class: "chip" }, run.agent),
            followState,
          ),
        ),
        h("div", { class: "actions" }, replay, cancel),
      ),
      h(
        "div",
        { class: "run-grid" },
        h(
          "div",
          { class: "run-main" },
          answerHolder,
          liveText.element,
          h("section", { class: "panel" }, h("h2", {}, "Result"), resultHolder),
          h("section", { class: "panel" }, h("h2", {}, "Where the time went"), waterfallHolder),
          h("section", { class: "panel" }, h("h2", {}, "Timeline"), timeline.element),
        ),
        h(
          "aside",
          { class: "run-side" },
          h("section", { class: "panel" }, h("h2", {}, "Details"), factsHolder),
          h("section", { class: "panel" }, h("h2", {}, "Tree"), treeHolder),
          h(
            "section",
            { class: "panel" },
            h("h2", {}, "Fired with"),
            metadata.length > 0
              ? h(
                  "div",
                  { class: "chips", testid: "metadata" },
                  metadata.map(([key, value]) => h("span", { class: "chip" }, `${key}: ${value}`)),
                )
              : null,
            jsonBlock(definition.input, {
              label: "input",
              truncated: definition.inputTruncated,
              loadAll: async () =>
                ((await readFullEvent(runId, 1)).data as { input: unknown }).input,
            }),
            definition.outputSchema === undefined
              ? null
              : h(
                  "details",
                  {},
                  h("summary", {}, "output schema"),
                  jsonBlock(definition.outputSchema),
                ),
          ),
        ),
      ),
    );
    update(run);
    refreshTree();
    refreshWaterfall();
    if (!isSettled(run)) {
      deltas = followDeltas(runId, (delta) => liveText.add(delta));
      stream = followRun(runId, timeline.seq, {
        run: (view) => {
          const changed = view.status !== run.status;
          update(view);
          if (changed) refreshTree();
        },
        event: (event) => {
          timeline.add(event, true);
          refreshWaterfall();
        },
        end: () => {
          refreshTree();
          refreshWaterfall();
        },
      });
    }
    stopOverview = listenToOverview((message) => {
      if (message.changed) refreshTree();
    });
  }

  mount().catch((error: Error) => {
    if (!stopped)
      replaceChildren(
        main,
        h("h1", {}, "Run"),
        h("p", { class: "error-text", testid: "run-missing" }, error.message),
      );
  });
  return {
    stop() {
      stopped = true;
      stream?.close();
      deltas?.close();
      stopOverview?.();
    },
  };
}
