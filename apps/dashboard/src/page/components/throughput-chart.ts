/** Runs settled per minute as stacked bars: succeeded, failed, cancelled. */
import type { Overview } from "../api.js";
import { h } from "../dom.js";
import { formatClock } from "../format.js";

const KINDS = ["cancelled", "failed", "succeeded"] as const;

/** The chart of `throughput`'s minutes, the tallest column full height. */
export function throughputChart(throughput: Overview["throughput"]): HTMLElement {
  const totals = throughput.minutes.map((m) => m.succeeded + m.failed + m.cancelled);
  const highest = Math.max(1, ...totals);
  return h(
    "div",
    { class: "chart", testid: "throughput-chart" },
    throughput.minutes.map((minute) => {
      const column = h("div", {
        class: "chart-column",
        title: `${formatClock(minute.minute)} — ${minute.succeeded} succeeded, ${minute.failed} failed, ${minute.cancelled} cancelled`,
      });
      for (const kind of KINDS) {
        if (minute[kind] === 0) continue;
        const bar = h("div", { class: `bar bar-${kind}` });
        bar.style.height = `${(minute[kind] / highest) * 100}%`;
        column.append(bar);
      }
      return column;
    }),
  );
}
