/**
 * The `EventSink`: the runtime's only way out. Every fact a run produces goes
 * through `append`, one call per step, fenced by the seq the writer expects.
 */
import type { NewEvent, RunEvent } from "@errand/core";

/**
 * Where a run's events are appended. Implementations: the Redis store (in
 * production) and {@link createMemorySink} (tests and embedding).
 */
export interface EventSink {
  /**
   * Appends `events`, in order and all or nothing, after event `expectedSeq`
   * of run `runId`, and resolves with them as written (with their `seq`).
   * Rejects with an `ErrandError` of code
   * - `seq_conflict` when the log's last seq is not `expectedSeq`: another
   *   writer moved it on (re-read the log to find out who owns the run);
   * - `run_settled` when the run already has its terminal event, or when a
   *   terminal event in `events` is not the last one;
   * - `output_already_recorded` on a second `output-recorded`;
   * - `invalid_event` when an event does not match its schema.
   */
  append(runId: string, expectedSeq: number, events: NewEvent[]): Promise<RunEvent[]>;
}
