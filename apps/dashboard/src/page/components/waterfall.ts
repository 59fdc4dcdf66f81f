/**
 * Where a run's time went: one row per bar of its waterfall (the queue,
 * each model request, each tool call, each park), placed on one time axis
 * from the run's creation to its settling (or now), and the sentence that
 * says what an open run waits on.
 */
import type { WaitingOn, Waterfall, WaterfallBar } from "../api.js";
import { h } from "../dom.js";
import { formatClock, formatDuration } from "../format.js";

/** What `waitingOn` is, for people: `tool search running since 12:04:31`. */
export function waitingOnText(waitingOn: WaitingOn): string {
  const since = formatClock(waitingOn.since);
  switch (waitingOn.kind) {
    case "queued":
      return `queued since ${since}, for a worker`;
    case "tool":
      return `tool ${waitingOn.tool ?? waitingOn.label} running since ${since}`;
    case "wait":
      return `parked: ${waitingOn.label}, since ${since}`;
    default:
      return `${waitingOn.label}: in flight since ${since}`;
  }
}

function barRow(bar: WaterfallBar, totalMs: number): HTMLElement {
  const span = Math.max(1, totalMs);
  const fill = h("div", { class: `wf-bar wf-${bar.kind} wf-${bar.outcome}` });
  fill.style.left = `${(bar.offsetMs / span) * 100}%`;
  fill.style.width = `${(bar.durationMs / span) * 100}%`;
  const outcome = bar.outcome === "ok" ? "" : ` (${bar.outcome})`;
  return h(
    "div",
    {
      class: "wf-row",
      testid: "waterfall-bar",
      title: `${bar.label}: ${formatClock(bar.startAt)} → ${formatClock(bar.endAt)}${outcome}`,
      attrs: { "data-kind": bar.kind, "data-outcome": bar.outcome },
    },
    h("span", { class: "wf-label" }, bar.label),
    h("div", { class: "wf-track" }, fill),
    h("span", { class: "wf-time" }, `${formatDuration(bar.durationMs)}${outcome}`),
  );
}

/** The waterfall's rows under an axis from 0 to its whole span. */
export function waterfallChart(waterfall: Waterfall): HTMLElement {
  if (waterfall.bars.length === 0) return h("p", { class: "muted" }, "Nothing happened yet.");
  return h(
    "div",
    { class: "waterfall", testid: "waterfall" },
    h(
      "div",
      { class: "wf-row wf-axis" },
      h("span", { class: "wf-label" }, formatClock(waterfall.startAt)),
      h(
        "div",
        { class: "wf-track" },
        h("span", {}, "0"),
        h("span", {}, formatDuration(waterfall.totalMs)),
      ),
      h("span", { class: "wf-time" }, ""),
    ),
    waterfall.bars.map((bar) => barRow(bar, waterfall.totalMs)),
  );
}
