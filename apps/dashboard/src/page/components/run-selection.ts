/**
 * Choosing runs in a list to act on them at once: a checkbox on each run,
 * one in the header for every run shown, and a bar that cancels the open
 * runs of the selection — or, when the list is filtered to runs that may be
 * open, every open run the filter matches, shown or not — confirmed in a
 * dialog, optionally cascading, and says what became of each run; and that
 * re-runs the selection, or every run a filtered list matches
 * (`bulk-rerun.ts`).
 */
import {
  ApiError,
  type BulkCancelResult,
  cancelMatching,
  cancelRuns,
  loadSession,
  type RunRow,
  type RunsFilter,
} from "../api.js";
import { h } from "../dom.js";
import { toast } from "../views/toast.js";
import { BulkRerun } from "./bulk-rerun.js";
import { confirmAction } from "./confirm.js";

const isOpen = (status: string) => status === "queued" || status === "running";

/** What a bulk cancel did, in one sentence: `Cancel requested for 3 runs · 1 already settled`. */
function summaryOf({ results, more }: BulkCancelResult): string {
  const requested = results.filter((item) => item.ok && item.requested).length;
  const settled = results.filter((item) => item.ok && !item.requested).length;
  const refused = results.flatMap((item) => (item.ok ? [] : [`${item.runId}: ${item.error.code}`]));
  return [
    `Cancel requested for ${requested} run${requested === 1 ? "" : "s"}`,
    settled > 0 ? `${settled} already settled` : "",
    refused.length > 0 ? `refused: ${refused.join(", ")}` : "",
    more === true ? "more match: cancel them again" : "",
  ]
    .filter(Boolean)
    .join(" · ");
}

/** What the runs list's filters let "all matching" act on. */
export interface MatchingFilters {
  /** The filters "Cancel all matching" sends (filtered to runs that may be open), if any. */
  cancel?: RunsFilter;
  /** The filters "Re-run all matching" sends (any filter set), if any. */
  rerun?: RunsFilter;
}

/** The selection of one runs table. */
export class RunSelection {
  /** The bar above the table: how many are selected, and the cancel and re-run buttons. */
  readonly bar: HTMLElement;
  /** What the last re-run did, run by run. */
  readonly rerunPanel: HTMLElement;
  /** Each selected run's status when last shown. */
  private readonly selected = new Map<string, string>();
  private readonly boxes = new Map<string, HTMLInputElement>();
  private readonly count = h("span", { class: "muted small", testid: "selection-count" });
  private readonly cancel = h(
    "button",
    { class: "button danger", testid: "bulk-cancel-button" },
    "Cancel selected",
  );
  private readonly cancelFiltered = h(
    "button",
    {
      class: "button danger",
      testid: "filter-cancel-button",
      title: "Cancel every open run these filters match, shown or not",
    },
    "Cancel all matching",
  );
  private readonly rerun = h(
    "button",
    { class: "button", testid: "bulk-rerun-button" },
    "Re-run selected",
  );
  private readonly rerunFiltered = h(
    "button",
    {
      class: "button",
      testid: "filter-rerun-button",
      title: "Re-run every run these filters match, shown or not",
    },
    "Re-run all matching",
  );
  private readonly all = h("input", {
    testid: "select-all",
    title: "Select every run shown",
    attrs: { type: "checkbox" },
  });
  private readonly reruns: BulkRerun;
  /** How many runs the list shows, and whether older pages hold more. */
  private shown = { count: 0, more: false };

  /**
   * `filters`: what "Cancel all matching" and "Re-run all matching" send;
   * a button without its filter is hidden. `afterAction` reads the list again.
   */
  constructor(
    private readonly afterAction: () => void,
    private readonly filters: MatchingFilters = {},
  ) {
    this.reruns = new BulkRerun(afterAction);
    this.rerunPanel = this.reruns.panel;
    this.bar = h(
      "div",
      { class: "selection-bar" },
      this.count,
      this.rerun,
      this.rerunFiltered,
      this.cancel,
      this.cancelFiltered,
    );
    this.cancelFiltered.hidden = filters.cancel === undefined;
    this.rerunFiltered.hidden = filters.rerun === undefined;
    this.cancel.addEventListener("click", () => void this.cancelSelected());
    this.cancelFiltered.addEventListener("click", () => void this.cancelMatching());
    this.rerun.addEventListener("click", () => void this.rerunSelected());
    this.rerunFiltered.addEventListener("click", () => {
      if (filters.rerun === undefined) return;
      void this.reruns.rerunMatching(filters.rerun, this.shown.count, this.shown.more);
    });
    this.all.addEventListener("change", () => {
      for (const [runId, box] of this.boxes) {
        box.checked = this.all.checked;
        this.toggle(runId, box.dataset.status ?? "", box.checked);
      }
    });
    this.render();
  }

  /** The header cell: select every run shown. */
  headerCell(): HTMLTableCellElement {
    return h("th", { class: "select" }, this.all);
  }

  /** The row's cell: its checkbox. */
  cellOf(row: RunRow): HTMLTableCellElement {
    const box = h("input", {
      testid: "select-run",
      title: `Select ${row.runId}`,
      attrs: { type: "checkbox", "data-status": row.status },
    });
    box.checked = this.selected.has(row.runId);
    if (box.checked) this.selected.set(row.runId, row.status);
    box.addEventListener("change", () => this.toggle(row.runId, row.status, box.checked));
    this.boxes.set(row.runId, box);
    return h("td", { class: "select" }, box);
  }

  /** Forgets the rows shown (the table is drawn again), keeping what is still selected. */
  forgetRows(): void {
    this.boxes.clear();
  }

  /**
   * Once the rows are drawn (`more`: older pages hold more): the header's box
   * is checked when every run shown is selected. (A list drawn again while
   * runs change keeps a "select all" made before it, instead of unchecking
   * it under the cursor.)
   */
  rowsShown(more: boolean): void {
    const boxes = [...this.boxes.values()];
    this.all.checked = boxes.length > 0 && boxes.every((box) => box.checked);
    this.shown = { count: boxes.length, more };
    this.render();
  }

  private toggle(runId: string, status: string, on: boolean): void {
    if (on) this.selected.set(runId, status);
    else this.selected.delete(runId);
    this.render();
  }

  /** The selected runs that may be cancelled: the open ones. */
  private openSelected(): string[] {
    return [...this.selected].flatMap(([runId, status]) => (isOpen(status) ? [runId] : []));
  }

  private render(): void {
    this.count.textContent = `${this.selected.size} selected`;
    const open = this.openSelected().length;
    void loadSession().then((session) => {
      this.cancel.disabled = session.readOnly || open === 0;
      this.rerun.disabled = session.readOnly || this.selected.size === 0;
      this.cancelFiltered.disabled = session.readOnly;
      this.rerunFiltered.disabled = session.readOnly;
      if (session.readOnly) {
        for (const button of [this.cancel, this.cancelFiltered, this.rerun, this.rerunFiltered]) {
          button.title = "This dashboard is read-only.";
        }
      }
    });
  }

  /** Asks `title` before a bulk cancel: `undefined` when dismissed, else whether to cascade. */
  private ask(title: string): Promise<{ checked: boolean } | undefined> {
    return confirmAction({
      title,
      message:
        "The workers holding them abort them and they settle as cancelled. This cannot be undone.",
      confirmLabel: "Cancel runs",
      checkbox: "Also cancel every run they started (cascade)",
      danger: true,
    });
  }

  private async cancelSelected(): Promise<void> {
    const runIds = this.openSelected();
    const answer = await this.ask(`Cancel ${runIds.length} run${runIds.length === 1 ? "" : "s"}?`);
    if (answer === undefined) return;
    await this.report(cancelRuns(runIds, answer.checked));
  }

  private async cancelMatching(): Promise<void> {
    const filter = this.filters.cancel;
    if (filter === undefined) return;
    const named = Object.entries(filter).map(([key, value]) => `${key} "${value}"`);
    const answer = await this.ask(`Cancel every open run matching ${named.join(", ")}?`);
    if (answer === undefined) return;
    await this.report(cancelMatching(filter, answer.checked));
  }

  private async rerunSelected(): Promise<void> {
    if (await this.reruns.rerunSelected([...this.selected.keys()])) this.clear();
  }

  /** Unselects every run. */
  private clear(): void {
    this.selected.clear();
    for (const box of this.boxes.values()) box.checked = false;
    this.all.checked = false;
    this.render();
  }

  /** Says what the bulk cancel `cancelling` did, clears the selection and reloads the list. */
  private async report(cancelling: Promise<BulkCancelResult>): Promise<void> {
    try {
      const answer = await cancelling;
      toast(
        summaryOf(answer),
        answer.results.some((item) => !item.ok),
      );
      this.clear();
      this.afterAction();
    } catch (error) {
      toast(error instanceof ApiError ? error.message : String(error), true);
    }
  }
}
