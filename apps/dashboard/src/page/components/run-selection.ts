/**
 * Choosing runs in a list to cancel them at once: a checkbox on each open
 * run (queued or running), one in the header for every open run shown, and
 * a bar that cancels the selection — confirmed in a dialog, optionally
 * cascading — and says what became of each run.
 */
import { ApiError, type BulkCancelItem, cancelRuns, loadSession, type RunRow } from "../api.js";
import { h } from "../dom.js";
import { toast } from "../views/toast.js";
import { confirmAction } from "./confirm.js";

const isOpen = (row: RunRow) => row.status === "queued" || row.status === "running";

/** What a bulk cancel did, in one sentence: `Cancel requested for 3 runs · 1 already settled`. */
function summaryOf(results: readonly BulkCancelItem[]): string {
  const requested = results.filter((item) => item.ok && item.requested).length;
  const settled = results.filter((item) => item.ok && !item.requested).length;
  const refused = results.flatMap((item) => (item.ok ? [] : [`${item.runId}: ${item.error.code}`]));
  return [
    `Cancel requested for ${requested} run${requested === 1 ? "" : "s"}`,
    settled > 0 ? `${settled} already settled` : "",
    refused.length > 0 ? `refused: ${refused.join(", ")}` : "",
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
  private readonly all = h("input", {
    testid: "select-all",
    title: "Select every open run shown",
    attrs: { type: "checkbox" },
  });

  constructor(private readonly afterCancel: () => void) {
    this.bar = h("div", { class: "selection-bar" }, this.count, this.cancel);
    this.cancel.addEventListener("click", () => void this.cancelSelected());
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
    this.all.checked = false;
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
      if (session.readOnly) this.cancel.title = "This dashboard is read-only.";
    });
  }

  private async cancelSelected(): Promise<void> {
    const runIds = [...this.selected];
    const answer = await confirmAction({
      title: `Cancel ${runIds.length} run${runIds.length === 1 ? "" : "s"}?`,
      message:
        "The workers holding them abort them and they settle as cancelled. This cannot be undone.",
      confirmLabel: "Cancel runs",
      checkbox: "Also cancel every run they started (cascade)",
      danger: true,
    });
    if (answer === undefined) return;
    try {
      const { results } = await cancelRuns(runIds, answer.checked);
      toast(
        summaryOf(results),
        results.some((item) => !item.ok),
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
