/**
 * Which of a BullMQ worker's fetches (`moveToActive`) can be left out
 * because the queue's marker will make it anyway
 * (docs/architecture/worker.md#how-a-job-reaches-the-worker). BullMQ's fetch
 * that takes a job puts the queue's marker back for other workers; its loop
 * then fetches again at once without blocking, and when that finds nothing
 * it blocks on the marker, which is still there: it wakes at once and
 * fetches a third time. A job fetched after a wake-up thus costs three
 * fetches when it arrives alone. The second, made while the marker its
 * predecessor left is still there, is the one left out: the blocking read
 * wakes on that marker at once and makes the fetch that finds the next job,
 * if any. A job is never lost by leaving one out: with no marker, the
 * blocking read still returns after BullMQ's `drainDelay`, and fetches.
 *
 * In a burst, the fetch after a wake-up that follows a left-out one takes a
 * job too: from then on BullMQ's own sequence of fetches is kept, each
 * straight after the last, until one finds nothing.
 */

/**
 * What a worker's last fetches were: `marker-left` when the last one woke on
 * the marker and took a job (so the marker is back), `left-out` when the last
 * one was left out, `other` otherwise.
 */
type LastFetch = "marker-left" | "left-out" | "other";

/** A worker's record of its last fetches, which decides whether to leave out the next one. */
export class FetchAfterWake {
  private last: LastFetch = "other";

  /**
   * Whether to leave out a fetch about to be made: only one made without
   * waking on the marker (`woken` false), straight after a fetch that woke on
   * it and took a job. Call {@link made} after a fetch not left out.
   */
  leaveOut(woken: boolean): boolean {
    if (this.last !== "marker-left") return false;
    this.last = woken ? "other" : "left-out";
    return !woken;
  }

  /** Records a fetch made: whether it woke on the marker and whether it took a job. */
  made(woken: boolean, tookJob: boolean): void {
    this.last = woken && tookJob && this.last !== "left-out" ? "marker-left" : "other";
  }
}
