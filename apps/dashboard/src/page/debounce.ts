/** Calling something once after a burst of reasons to. */

/** How long a burst of calls is gathered into one. */
const DEBOUNCE_MS = 150;

/** `task`, run once `DEBOUNCE_MS` after the last of a burst of calls. */
export function debounced(task: () => void | Promise<void>): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return () => {
    clearTimeout(timer);
    timer = setTimeout(task, DEBOUNCE_MS);
  };
}
