/**
 * The runs a collector folds as their events arrive (docs/architecture/collector.md): a run whose
 * shard entries this collector received in order from its `run-queued` on is
 * folded entry by entry, so when it settles its result needs no read of its
 * log. An entry at or below the folded seq is a repeat and changes nothing.
 * A run that reached this collector with a gap — another collector of the
 * group took some of its entries, a redelivery after a restart, an entry
 * dead-lettered, a projection forgotten to stay within its budget — is not
 * followed: its result is folded from its log, which is always the truth.
 *
 * Each run is folded for its result alone (`applyResultEventInPlace`: a
 * step keeps its number, usage and cost, not its calls, text or items): a
 * result, and a queued run's deadline, are all the collector reads of a
 * projection. A projection is the collector's own and each event is folded
 * into it in place, so the thousandth step of a run costs what its first
 * did (docs/architecture/events.md#the-fold-in-place).
 *
 * The budget is in the size of the entries folded (their field names and
 * values), which bounds what a run's state grows with: inputs can be large,
 * so a count of runs alone would not bound the memory.
 */
import { initialRunState, type RunEvent, type RunState } from "@errand/core";
import { applyResultEventInPlace } from "@errand/core/ops";

/** The size of entries a collector keeps folded in memory when not told: 32 MiB. */
export const DEFAULT_PROJECTION_BYTES = 32 * 1024 * 1024;

interface Followed {
  state: RunState;
  /** The size of the entries folded into `state`. */
  size: number;
  /** Whether this collector's index call answered that it indexed the run (see {@link RunProjections.markListed}). */
  listed: boolean;
}

/** In-memory projections of the runs a collector follows, within a size budget. */
export class RunProjections {
  readonly #runs = new Map<string, Followed>();
  /** The run set in {@link #runs} last: while it is there, it is the map's last. */
  #lastSet: string | undefined;
  #size = 0;

  /**
   * @param budget The most entry size followed at once; beyond it, the runs
   * least recently folded are forgotten first.
   */
  constructor(readonly budget: number = DEFAULT_PROJECTION_BYTES) {}

  /** How many runs are followed. */
  get runs(): number {
    return this.#runs.size;
  }

  /** The size of the entries folded into the runs followed. */
  get size(): number {
    return this.#size;
  }

  /**
   * Folds `event` (from an entry of `size`) into its run's projection and
   * returns the projection, or `undefined` when the run is not followed (its
   * entries did not all reach this collector in order from seq 1). A gap
   * ends the run's projection. The projection returned is the one later
   * events of its run are folded into, in place: read it before folding
   * more of its run (a settled run changes no more but for its seq).
   */
  apply(event: RunEvent, size: number): RunState | undefined {
    const known = this.#runs.get(event.runId);
    const followed =
      known ??
      (event.seq === 1
        ? { state: initialRunState(event.runId), size: 0, listed: false }
        : undefined);
    if (followed === undefined || event.seq <= followed.state.seq) return followed?.state;
    if (event.seq !== followed.state.seq + 1) {
      this.forget(event.runId);
      return undefined;
    }
    // The map's order is the order runs were last folded in: a run folded last already stays
    // where it is (an append's events are one run's), any other moves to the end.
    const isLast = known !== undefined && event.runId === this.#lastSet;
    if (!isLast) this.forget(event.runId);
    followed.state = applyResultEventInPlace(followed.state, event);
    followed.size += size;
    if (isLast) this.#size += size;
    else this.#setLast(event.runId, followed);
    this.#keepWithinBudget();
    return this.#runs.has(event.runId) ? followed.state : undefined;
  }

  /**
   * Follows a run from `state` (its seq and all before it folded, from an
   * entry of `size`), unless the run is followed already: a quietly opened
   * run's first entry starts its projection from its `run-queued`'s summary
   * (`queued-summary.ts`). `state` becomes the projection's own: later
   * events are folded into it in place.
   */
  follow(state: RunState, size: number): void {
    if (this.#runs.has(state.runId)) return;
    this.#setLast(state.runId, { state, size, listed: false });
    this.#keepWithinBudget();
  }

  /**
   * Follows `runId` as `followed`, at the map's end (it is not in the map).
   * Each fold moving its run to the end would delete and set a map entry an
   * event, and a map of the few runs in flight reallocates its table as it
   * empties and fills: the run set last is remembered, so that its next
   * events fold in place.
   */
  #setLast(runId: string, followed: Followed): void {
    this.#runs.set(runId, followed);
    this.#lastSet = runId;
    this.#size += followed.size;
  }

  /**
   * Notes that `runId` is in its agent's and tenant's runs: this collector's
   * index call answered that it indexed it, or the append that opened it
   * did (its shard entry says `indexed`), so that its settling call need not
   * write those again. Nothing for a run not followed.
   */
  markListed(runId: string): void {
    const followed = this.#runs.get(runId);
    if (followed !== undefined) followed.listed = true;
  }

  /** Whether {@link markListed} was called for `runId` since it has been followed. */
  isListed(runId: string): boolean {
    return this.#runs.get(runId)?.listed ?? false;
  }

  /** Stops following `runId` (once it settled, or when its entries could not be applied). */
  forget(runId: string): void {
    const followed = this.#runs.get(runId);
    if (followed === undefined) return;
    this.#runs.delete(runId);
    this.#size -= followed.size;
  }

  /**
   * Forgets the runs followed longest (the least recently folded) until the
   * rest fit the budget. The size is checked before the map's iterator is
   * made: runs are deleted from the map's front (each fold moves its run to
   * the end, a settled run leaves), and an iterator steps over every deleted
   * slot before the first run: up to 10 µs a fold with 20,000 runs followed,
   * measured alone, until the map compacts itself.
   */
  #keepWithinBudget(): void {
    if (this.#size <= this.budget) return;
    for (const runId of this.#runs.keys()) {
      if (this.#size <= this.budget) return;
      this.forget(runId);
    }
  }
}
