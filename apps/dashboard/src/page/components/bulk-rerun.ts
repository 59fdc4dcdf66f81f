/**
 * Re-running runs at once from the runs list (docs/guide/reruns.md): the
 * selection, or every run the list's filters match — page after page of up
 * to 100, under one request key, so a page sent again fires no run twice —
 * confirmed in a dialog that says how many, on the version each run ran or
 * (ticked) the newest. A panel then says what became of each run: re-run as
 * a new run (a link to it), already re-run by this request, or refused with
 * its code (`agent_version_unavailable` when no worker of its version lives).
 */
import {
  ApiError,
  type BulkRerunResult,
  type RerunItem,
  type RerunVersion,
  type RunsFilter,
  rerunMatching,
  rerunRuns,
} from "../api.js";
import { h, link, replaceChildren } from "../dom.js";
import { toast } from "../views/toast.js";
import { confirmAction } from "./confirm.js";

/** The most pages of 100 runs one "Re-run all matching" goes through. */
const MAX_RERUN_PAGES = 100;

/**
 * A new request key: random hex (`crypto.getRandomValues` works on a page
 * served over plain http too, where `crypto.randomUUID` does not).
 */
function newRequestKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? "" : "s"}`;

/** `Re-ran 3 runs · 1 already re-run · 2 refused (agent_version_unavailable ×2)`. */
function rerunSummaryOf(results: readonly RerunItem[], stopped = false): string {
  const fired = results.filter((item) => item.ok && item.deduplicated !== true).length;
  const deduplicated = results.filter((item) => item.ok && item.deduplicated === true).length;
  const codes = new Map<string, number>();
  for (const item of results) {
    const code = item.ok ? undefined : (item.error?.code ?? "error");
    if (code !== undefined) codes.set(code, (codes.get(code) ?? 0) + 1);
  }
  const refused = results.length - fired - deduplicated;
  const byCode = [...codes].map(([code, count]) => `${code} ×${count}`).join(", ");
  return [
    `Re-ran ${plural(fired, "run")}`,
    deduplicated > 0 ? `${deduplicated} already re-run` : "",
    refused > 0 ? `${refused} refused (${byCode})` : "",
    stopped ? `stopped after ${MAX_RERUN_PAGES} pages: re-run all matching again` : "",
  ]
    .filter(Boolean)
    .join(" · ");
}

function itemRow(item: RerunItem): HTMLLIElement {
  const outcome = !item.ok
    ? h(
        "span",
        { class: "error-text" },
        h("span", { class: "tag bad", testid: "rerun-code" }, item.error?.code ?? "error"),
        " ",
        item.error?.message ?? "",
      )
    : h(
        "span",
        {},
        item.deduplicated === true ? "already re-run as " : "re-run as ",
        link(`/runs/${item.runId}`, { class: "mono", testid: "rerun-new-run" }, item.runId ?? ""),
      );
  return h(
    "li",
    {
      testid: "rerun-item",
      attrs: { "data-source-run-id": item.sourceRunId, "data-ok": String(item.ok) },
    },
    link(`/runs/${item.sourceRunId}`, { class: "mono" }, item.sourceRunId),
    " → ",
    outcome,
  );
}

/** The re-run buttons' work for one runs list, and the panel it reports in. */
export class BulkRerun {
  /** Where the last re-run says what became of each run; empty until one. */
  readonly panel = h("section", { class: "panel rerun-results", testid: "rerun-results" });

  /** `afterRerun` runs once a re-run is done (the list is read again). */
  constructor(private readonly afterRerun: () => void) {
    this.panel.hidden = true;
  }

  /** Asks, then re-runs `runIds`; resolves with whether it ran. */
  async rerunSelected(runIds: readonly string[]): Promise<boolean> {
    const version = await this.ask(`Re-run ${plural(runIds.length, "run")}?`, "");
    if (version === undefined) return false;
    await this.report(async (progress) => {
      const answer = await rerunRuns(runIds, version, newRequestKey());
      progress(answer.results);
      return { results: answer.results, stopped: false };
    });
    return true;
  }

  /** Asks, then re-runs every run `filter` matches (`shown` of them on the list now, `more` if it goes on). */
  async rerunMatching(filter: RunsFilter, shown: number, more: boolean): Promise<void> {
    const named = Object.entries(filter).map(([key, value]) => `${key} "${value}"`);
    const count = `${plural(shown, "run")} shown${more ? ", and more further down the list" : ""}. `;
    const version = await this.ask(
      `Re-run every run matching ${named.join(", ")}?`,
      `${count}They are fired again 100 at a time, page after page, until none is left. `,
    );
    if (version === undefined) return;
    const requestKey = newRequestKey();
    await this.report(async (progress) => {
      const results: RerunItem[] = [];
      let cursor: string | undefined;
      for (let pages = 0; pages < MAX_RERUN_PAGES; pages++) {
        const page: BulkRerunResult = await rerunMatching(filter, version, requestKey, cursor);
        results.push(...page.results);
        progress(results);
        cursor = page.hasMore ? page.nextCursor : undefined;
        if (cursor === undefined) return { results, stopped: false };
      }
      return { results, stopped: true };
    });
  }

  /** Asks `title`: `undefined` when dismissed, else the version to re-run on. */
  private async ask(title: string, more: string): Promise<RerunVersion | undefined> {
    const answer = await confirmAction({
      title,
      message: `${more}Each becomes a new run with the same input, schema and metadata (plus rerunOf), on the version it ran — refused run by run when no worker of that version is live.`,
      confirmLabel: "Re-run",
      checkbox: "On the newest live version instead",
    });
    if (answer === undefined) return undefined;
    return answer.checked ? "newest" : "original";
  }

  /** Runs `rerun`, showing its results as they come, then says what it did. */
  private async report(
    rerun: (
      progress: (results: readonly RerunItem[]) => void,
    ) => Promise<{ results: RerunItem[]; stopped: boolean }>,
  ): Promise<void> {
    const summary = h("p", { testid: "rerun-summary" }, "Re-running…");
    const list = h("ul", { class: "rerun-items" });
    replaceChildren(this.panel, summary, list);
    this.panel.hidden = false;
    const show = (results: readonly RerunItem[]) => {
      list.replaceChildren(...results.map(itemRow));
      summary.textContent = `Re-running… ${plural(results.length, "run")} so far`;
    };
    try {
      const { results, stopped } = await rerun(show);
      show(results);
      summary.textContent = rerunSummaryOf(results, stopped);
      toast(
        summary.textContent,
        results.some((item) => !item.ok),
      );
      this.afterRerun();
    } catch (error) {
      summary.textContent = error instanceof ApiError ? error.message : String(error);
      summary.className = "error-text";
      toast(summary.textContent, true);
    }
  }
}
