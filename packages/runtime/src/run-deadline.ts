/**
 * A run's timeout, counted from its first start (so a run resumed after a
 * crash cannot run forever): a signal that fires when the time is up, and a
 * check that also trusts the injected clock.
 */

/** The longest delay `setTimeout` takes (about 24.8 days); longer waits are re-armed. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The deadline of one `runSteps` call. */
export interface RunDeadline {
  /** Fires when the timeout passes while the run is working. */
  signal: AbortSignal;
  /** True once the timeout has passed (by the timer or by `now`). */
  expired(): boolean;
  /** Stops the timer. */
  dispose(): void;
}

/**
 * The deadline of a run started at `startedAt` (ISO-8601; the current time
 * when missing) with `timeoutMs`; without a timeout it never expires.
 */
export function startDeadline(
  startedAt: string | undefined,
  timeoutMs: number | undefined,
  now: () => Date,
): RunDeadline {
  const controller = new AbortController();
  if (timeoutMs === undefined) {
    return { signal: controller.signal, expired: () => false, dispose: () => {} };
  }
  const start = startedAt === undefined ? now().getTime() : Date.parse(startedAt);
  const deadlineAt = start + timeoutMs;
  let timer: NodeJS.Timeout | undefined;
  let remaining = deadlineAt - now().getTime();
  const arm = () => {
    if (remaining <= 0) {
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
    expired: () => controller.signal.aborted || now().getTime() >= deadlineAt,
    dispose: () => clearTimeout(timer),
  };
}
