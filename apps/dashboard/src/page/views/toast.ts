/** A short message at the bottom of the page, gone after a few seconds. */
import { h } from "../dom.js";

/** Shows `message` (as an error when `error`). */
export function toast(message: string, error = false): void {
  const note = h(
    "div",
    { class: error ? "toast toast-error" : "toast", testid: "toast", attrs: { role: "status" } },
    message,
  );
  document.body.append(note);
  setTimeout(() => note.remove(), 4_000);
}
