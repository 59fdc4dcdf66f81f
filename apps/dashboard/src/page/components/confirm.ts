/**
 * Asking before an action: a modal dialog with the question, an optional
 * checkbox, and Confirm / Keep buttons. Resolves with the checkbox's state
 * when confirmed, `undefined` when dismissed.
 */
import { h } from "../dom.js";

/** What the dialog asks. */
export interface ConfirmOptions {
  title: string;
  message: string;
  confirmLabel: string;
  /** A checkbox offered beside the question (e.g. "also cancel its children"). */
  checkbox?: string;
  danger?: boolean;
}

/** Shows the dialog; resolves `{ checked }` on confirm, `undefined` on cancel. */
export function confirmAction(options: ConfirmOptions): Promise<{ checked: boolean } | undefined> {
  return new Promise((resolve) => {
    const checkbox = h("input", { attrs: { type: "checkbox" }, testid: "confirm-checkbox" });
    const dialog: HTMLDialogElement = h(
      "dialog",
      { class: "confirm", testid: "confirm-dialog" },
      h("h2", {}, options.title),
      h("p", {}, options.message),
      options.checkbox === undefined
        ? null
        : h("label", { class: "checkbox" }, checkbox, options.checkbox),
      h(
        "div",
        { class: "dialog-buttons" },
        h(
          "button",
          {
            class: "button",
            testid: "confirm-cancel",
            on: { click: () => dialog.close("cancel") },
          },
          "Keep",
        ),
        h(
          "button",
          {
            class: options.danger ? "button danger" : "button primary",
            testid: "confirm-ok",
            on: { click: () => dialog.close("ok") },
          },
          options.confirmLabel,
        ),
      ),
    );
    dialog.addEventListener("close", () => {
      dialog.remove();
      resolve(dialog.returnValue === "ok" ? { checked: checkbox.checked } : undefined);
    });
    document.body.append(dialog);
    dialog.showModal();
  });
}
