/**
 * A run's timeout, counted from its first start (so a run resumed after a
 * crash cannot run forever) less the time it spent parked, waiting for its
 * children or on a waitpoint (docs/architecture/worker.md#cancellation-timeouts-and-shutdown): a signal that fires
 * when the time is up or the caller's signal fires, and a check that also
 * trusts the injected clock.
 */
import type { RunState } from "@errand/core";

/** The longest delay `setTimeout` takes (about 24.8 days); longer waits are re-armed. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The deadline of one `runSteps` call. */
export interface RunDeadline {
  /** Fires when the caller's signal fires, or when the timeout passes while the run is working. */
  signal: AbortSignal;
  /** True once the timeout has passed (by the timer or by `now`). */
  expired(): boolean;
  /** Stops the timer and lets go of the caller's signal. */
  dispose(): void;
}

/**
 * The deadline of a run with `timeoutMs`, first started at `run.startedAt`
 * (ISO-8601; the current time when missing) and parked `run.parkedMs` since,
 * for work that `signal` may abort first. Without a timeout it never expires
 * and its signal is `signal` itself.
 * (One listener on `signal` rather than `AbortSignal.any`, which costs more
 * than a whole step of a scripted run on Node 20.)
 */
export function startDeadline(
  run: Pick<RunState, "startedAt" | "parkedMs">,
  timeoutMs: number | undefined,
  now: () => Date,
  signal: AbortSignal,
): RunDeadline {
  if (timeoutMs === undefined) return { signal, expired: () => false, dispose: () => {} };
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal.reason);
  if (signal.aborted) onAbort();
  else signal.addEventListener("abort", onAbort, { once: true });
  const start = run.startedAt === undefined ? now().getTime() : Date.parse(run.startedAt);
  const deadlineAt = start + (run.parkedMs ?? 0) + timeoutMs;
  let timer: NodeJS.Timeout | undefined;
  let timedOut = false;
  let remaining = deadlineAt - now().getTime();
  const arm = () => {
    if (remaining <= 0) {
      timedOut = true;
      controller.abort(new Error(`the run exceeded its timeout of ${timeoutMs} ms`));
      return;
    }
    const wait = Math.min(remaining, MAX_TIMER_MS);
    remaining -= wait;
    timer = setTimeout(arm, wait);
  };
  arm();
  return {
    signal: controller.signal,
    expired: () => timedOut || now().getTime() >= deadlineAt,
    dispose: () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
    },
  };
}
