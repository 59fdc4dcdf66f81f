/**
 * The runs a collector folds as their events arrive (DESIGN §8): a run whose
 * shard entries this collector received in order from its `run-queued` on is
 * folded entry by entry, so when it settles its result needs no read of its
 * log. An entry at or below the folded seq is a repeat and changes nothing.
 * A run that reached this collector with a gap — another collector of the
 * group took some of its entries, a redelivery after a restart, an entry
 * dead-lettered, a projection forgotten to stay within `capacity` — is not
 * followed: its result is folded from its log, which is always the truth.
 */
import { applyEvent, initialRunState, type RunEvent, type RunState } from "@errand/core";

/** How many open runs a collector folds in memory when not told. */
export const DEFAULT_MAX_PROJECTIONS = 10_000;

/** In-memory projections of the runs a collector follows; at most `capacity` at once. */
export class RunProjections {
  readonly #states = new Map<string, RunState>();

  /** @param capacity The most runs followed at once; the run followed longest is forgotten first. */
  constructor(readonly capacity: number = DEFAULT_MAX_PROJECTIONS) {}

  /** How many runs are followed. */
  get size(): number {
    return this.#states.size;
  }

  /**
   * Folds `event` into its run's projection and returns the projection, or
   * `undefined` when the run is not followed (its entries did not all reach
   * this collector in order from seq 1). A gap ends the run's projection.
   */
  apply(event: RunEvent): RunState | undefined {
    const current =
      this.#states.get(event.runId) ?? (event.seq === 1 ? this.#follow(event.runId) : undefined);
    if (current === undefined || event.seq <= current.seq) return current;
    if (event.seq !== current.seq + 1) {
      this.#states.delete(event.runId);
      return undefined;
    }
    const next = applyEvent(current, event);
    this.#states.set(event.runId, next);
    return next;
  }

  /** Stops following `runId` (once it settled, or when its entries could not be applied). */
  forget(runId: string): void {
    this.#states.delete(runId);
  }

  #follow(runId: string): RunState {
    if (this.#states.size >= this.capacity) {
      const oldest = this.#states.keys().next();
      if (!oldest.done) this.#states.delete(oldest.value);
    }
    const state = initialRunState(runId);
    this.#states.set(runId, state);
    return state;
  }
}
