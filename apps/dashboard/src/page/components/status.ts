/** A run's status as a colored badge. */
import { h } from "../dom.js";

/** The badge of `status` (queued, running, succeeded, failed, cancelled). */
export function statusBadge(status: string, testid?: string): HTMLSpanElement {
  return h(
    "span",
    { class: `status status-${status}`, ...(testid === undefined ? {} : { testid }) },
    status,
  );
}
