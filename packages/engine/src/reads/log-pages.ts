/**
 * A run's log folded a page at a time (docs/architecture/collector.md#results-folded-a-page-at-a-time):
 * `readLog` after the folded seq, {@link LOG_PAGE_EVENTS} events a read, so
 * that a parent of a million children costs its readers a reply of a few MB
 * and whatever they keep of a page, not its whole log in one reply and one
 * array.
 */
import { initialRunState, type RunEvent, type RunState } from "@errand/core";
import type { EventStore } from "@errand/store";

/**
 * Events a read of a page asks for: each event holds a few tens of KB at
 * most (its values over the inline limits are blobs), so a page is a reply
 * of a few MB at most, and a child's log is one read.
 */
export const LOG_PAGE_EVENTS = 256;

/**
 * Run `runId`'s log folded from its initial state by `fold`, one page of
 * events after another, up to the end of the log. `fold` gets each page in
 * order and returns the state folded so far; the next page starts after its
 * seq. The state `fold` gets is this fold's own, read by nothing else: it
 * folds the page into it in place (`applyEventInPlace`), so a log costs
 * O(its events), not a copy of its steps an event.
 */
export async function foldLogInPages(
  store: Pick<EventStore, "readLog">,
  runId: string,
  fold: (state: RunState, page: readonly RunEvent[]) => RunState,
): Promise<RunState> {
  let state = initialRunState(runId);
  for (;;) {
    const page = await store.readLog(runId, { afterSeq: state.seq, count: LOG_PAGE_EVENTS });
    state = fold(state, page);
    if (page.length < LOG_PAGE_EVENTS) return state;
  }
}
