/**
 * Graceful shutdown for a worker process: on `SIGTERM` (or `SIGINT`) the
 * worker stops taking jobs, lets its active runs finish for a grace period,
 * closes, and the process exits 0 — whatever state Redis is in (gone,
 * frozen, failing over): a worker with no active run exits at once (within
 * `IDLE_CLOSE_ALLOWANCE_MS`, 1 s), one holding runs within its grace period
 * and `CLOSE_ALLOWANCE_MS` (5 s). A run still going after the grace period
 * keeps its log: its lock lapses and another worker resumes it. It exits 1
 * only when closing fails for another reason than Redis being gone.
 */
import type { CloseWorkerOptions, ErrandWorker } from "./create-worker.js";

/** Options of {@link closeOnSignals}. */
export interface CloseOnSignalsOptions extends CloseWorkerOptions {
  /** Default `["SIGTERM", "SIGINT"]`. */
  signals?: readonly NodeJS.Signals[];
  /** Exit the process once closed. Default true. */
  exit?: boolean;
}

/** Closes `worker` on the first of `signals`; returns a function that stops listening. */
export function closeOnSignals(
  worker: Pick<ErrandWorker, "close">,
  options: CloseOnSignalsOptions = {},
): () => void {
  const signals = options.signals ?? ["SIGTERM", "SIGINT"];
  const onSignal = () => {
    stop();
    const closeOptions = options.graceMs === undefined ? {} : { graceMs: options.graceMs };
    worker.close(closeOptions).then(
      () => {
        if (options.exit ?? true) process.exit(0);
      },
      () => {
        if (options.exit ?? true) process.exit(1);
      },
    );
  };
  const stop = () => {
    for (const signal of signals) process.off(signal, onSignal);
  };
  for (const signal of signals) process.once(signal, onSignal);
  return stop;
}
