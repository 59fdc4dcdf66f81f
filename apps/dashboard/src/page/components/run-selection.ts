/**
 * Choosing runs in a list to cancel them at once: a checkbox on each open
 * run (queued or running), one in the header for every open run shown, and
 * a bar that cancels the selection — or, when the list is filtered, every
 * open run the filter matches, shown or not — confirmed in a dialog,
 * optionally cascading, and says what became of each run.
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
import { confirmAction } from "./confirm.js";

const isOpen = (row: RunRow) => row.status === "queued" || row.status === "running";

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

/** The selection of one runs table. */
export class RunSelection {
  /** The bar above the table: how many are selected, and the cancel button. */
  readonly bar: HTMLElement;
  private readonly selected = new Set<string>();
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
  private readonly all = h("input", {
    testid: "select-all",
    title: "Select every open run shown",
    attrs: { type: "checkbox" },
  });

  /**
   * `filter`: the list's filters when it is filtered to runs that may be
   * open, which "Cancel all matching" cancels; without one the button is hidden.
   */
  constructor(
    private readonly afterCancel: () => void,
    private readonly filter?: RunsFilter,
  ) {
    this.bar = h("div", { class: "selection-bar" }, this.count, this.cancel, this.cancelFiltered);
    this.cancelFiltered.hidden = filter === undefined;
    this.cancel.addEventListener("click", () => void this.cancelSelected());
    this.cancelFiltered.addEventListener("click", () => void this.cancelMatching());
    this.all.addEventListener("change", () => {
      for (const [runId, box] of this.boxes) {
        box.checked = this.all.checked;
        this.toggle(runId, box.checked);
      }
    });
    this.render();
  }

  /** The header cell: select every open run shown. */
  headerCell(): HTMLTableCellElement {
    return h("th", { class: "select" }, this.all);
  }

  /** The row's cell: a checkbox for an open run, nothing for a settled one. */
  cellOf(row: RunRow): HTMLTableCellElement {
    if (!isOpen(row)) return h("td", { class: "select" });
    const box = h("input", {
      testid: "select-run",
      title: `Select ${row.runId}`,
      attrs: { type: "checkbox" },
    });
    box.checked = this.selected.has(row.runId);
    box.addEventListener("change", () => this.toggle(row.runId, box.checked));
    this.boxes.set(row.runId, box);
    return h("td", { class: "select" }, box);
  }

  /** Forgets the rows shown (the table is drawn again), keeping what is still selected. */
  forgetRows(): void {
    this.boxes.clear();
  }

  /**
   * Once the rows are drawn: the header's box is checked when every open run
   * shown is selected. (A list drawn again while runs change keeps a
   * "select all" made before it, instead of unchecking it under the cursor.)
   */
  rowsShown(): void {
    const boxes = [...this.boxes.values()];
    this.all.checked = boxes.length > 0 && boxes.every((box) => box.checked);
  }

  private toggle(runId: string, on: boolean): void {
    if (on) this.selected.add(runId);
    else this.selected.delete(runId);
    this.render();
  }

  private render(): void {
    this.count.textContent = `${this.selected.size} selected`;
    void loadSession().then((session) => {
      this.cancel.disabled = session.readOnly || this.selected.size === 0;
      this.cancelFiltered.disabled = session.readOnly;
      if (session.readOnly) {
        this.cancel.title = "This dashboard is read-only.";
        this.cancelFiltered.title = "This dashboard is read-only.";
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
    const runIds = [...this.selected];
    const answer = await this.ask(`Cancel ${runIds.length} run${runIds.length === 1 ? "" : "s"}?`);
    if (answer === undefined) return;
    await this.report(cancelRuns(runIds, answer.checked));
  }

  private async cancelMatching(): Promise<void> {
    if (this.filter === undefined) return;
    const named = Object.entries(this.filter).map(([key, value]) => `${key} "${value}"`);
    const answer = await this.ask(`Cancel every open run matching ${named.join(", ")}?`);
    if (answer === undefined) return;
    await this.report(cancelMatching(this.filter, answer.checked));
  }

  /** Says what the bulk cancel `cancelling` did, clears the selection and reloads the list. */
  private async report(cancelling: Promise<BulkCancelResult>): Promise<void> {
    try {
      const answer = await cancelling;
      toast(
        summaryOf(answer),
        answer.results.some((item) => !item.ok),
      );
      this.selected.clear();
      for (const box of this.boxes.values()) box.checked = false;
      this.all.checked = false;
      this.render();
      this.afterCancel();
    } catch (error) {
      toast(error instanceof ApiError ? error.message : String(error), true);
    }
  }
}
