/**
 * Deadlines on one timer: a call that gives up at a time (a client call's
 * patience, a waiter's `waitMs`) schedules a {@link Deadline} here instead
 * of a `setTimeout` of its own. Nearly every such call ends long before its
 * deadline, so a timer a call was an object a call, and, as Node drops the
 * list of a duration whose last timer is cleared and the durations differ
 * (a wait's time left), often one more. Here the deadlines wait in a heap
 * ordered by time, and one Node timer is armed for the earliest when it was
 * set: a deadline cancelled leaves it armed, and when it fires it expires
 * what is due and is armed again for the earliest left, if any. The timer
 * holds the process open while a deadline waits, as the timer of each call
 * did, and not once none does (it is unref'd).
 */

/** A callback due at a time; {@link Deadline.cancel} drops it. */
export interface Deadline {
  /** Drops the deadline: its callback is not called (nothing happens if it was). */
  cancel(): void;
}

class DueCallback implements Deadline {
  /** Its place in the heap; -1 once out of it. */
  index = -1;

  constructor(
    readonly at: number,
    readonly onExpire: () => void,
  ) {}

  cancel(): void {
    if (this.index >= 0) removeAt(this.index);
  }
}

/** The deadlines waiting, a binary heap on `at` (the earliest first). */
const heap: DueCallback[] = [];
/** The one timer, armed for {@link armedAt}; kept (unref'd) while no deadline waits. */
let timer: NodeJS.Timeout | undefined;
/** When {@link timer} fires, on the clock of `performance.now()`; Infinity when it is not armed. */
let armedAt = Number.POSITIVE_INFINITY;

function place(entry: DueCallback, index: number): void {
  heap[index] = entry;
  entry.index = index;
}

/** Moves the entry at `index` up while it is due before its parent. */
function siftUp(index: number): void {
  const entry = heap[index]!;
  let at = index;
  while (at > 0) {
    const parent = (at - 1) >> 1;
    if (heap[parent]!.at <= entry.at) break;
    place(heap[parent]!, at);
    at = parent;
  }
  place(entry, at);
}

/** Moves the entry at `index` down while a child is due before it. */
function siftDown(index: number): void {
  const entry = heap[index]!;
  let at = index;
  for (;;) {
    const left = 2 * at + 1;
    if (left >= heap.length) break;
    const right = left + 1;
    const child = right < heap.length && heap[right]!.at < heap[left]!.at ? right : left;
    if (heap[child]!.at >= entry.at) break;
    place(heap[child]!, at);
    at = child;
  }
  place(entry, at);
}

function removeAt(index: number): void {
  const removed = heap[index]!;
  removed.index = -1;
  const last = heap.pop()!;
  if (last !== removed) {
    place(last, index);
    siftDown(index);
    siftUp(last.index);
  }
  // Nothing waits: the armed timer no longer holds the process open.
  if (heap.length === 0) timer?.unref();
}

/** Arms the one timer for `at` (a new Node timer: only when the earliest deadline moved earlier, or it fired). */
function arm(at: number, now: number): void {
  if (timer !== undefined) clearTimeout(timer);
  armedAt = at;
  timer = setTimeout(expireDue, Math.max(1, Math.ceil(at - now)));
}

/**
 * Calls back every deadline due, then arms the timer for the earliest left,
 * even when a callback threw (its error still goes where a timer's goes).
 */
function expireDue(): void {
  timer = undefined;
  armedAt = Number.POSITIVE_INFINITY;
  const now = performance.now();
  try {
    while (heap.length > 0 && heap[0]!.at <= now) {
      const due = heap[0]!;
      removeAt(0);
      due.onExpire();
    }
  } finally {
    const next = heap[0];
    if (next !== undefined) arm(next.at, performance.now());
  }
}

/**
 * Calls `onExpire` once `delayMs` (at least 1 ms, as `setTimeout`'s) have
 * passed, unless the returned deadline is cancelled first.
 */
export function scheduleDeadline(delayMs: number, onExpire: () => void): Deadline {
  const now = performance.now();
  const entry = new DueCallback(now + delayMs, onExpire);
  heap.push(entry);
  siftUp(heap.length - 1);
  // An armed time already past is a timer late to fire (a busy loop) or one that never will (made
  // under a test's fake clock): arm anew, for the earliest deadline, which may be due already.
  if (entry.at < armedAt || armedAt < now) arm(heap[0]!.at, now);
  else timer?.ref();
  return entry;
}
