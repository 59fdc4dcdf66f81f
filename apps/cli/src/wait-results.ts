/**
 * Waiting for many runs to settle, telling as each one does. Each wait
 * blocks on the collector's settled notifications (through the client); a
 * run still going when the time is up comes back `undefined`.
 */
import type { RunResult } from "@errand/core";
import type { Errand } from "@errand/engine";

/** The longest one blocking wait lasts before it is renewed. */
const WAIT_SLICE_MS = 60_000;

/** Options of {@link waitForResults}. */
export interface WaitOptions {
  /** Give up after this long, in ms. Default: wait as long as it takes. */
  timeoutMs?: number;
  /** Told of each run as it settles. */
  onSettled?(result: RunResult): void;
}

async function waitForOne(
  errand: Pick<Errand, "result">,
  runId: string,
  deadline: number,
  onSettled: WaitOptions["onSettled"],
): Promise<RunResult | undefined> {
  for (;;) {
    const waitMs = Math.min(WAIT_SLICE_MS, Math.max(0, deadline - Date.now()));
    const result = await errand.result(runId, { waitMs });
    if (result !== undefined) {
      onSettled?.(result);
      return result;
    }
    if (Date.now() >= deadline) return undefined;
  }
}

/** The results of `runIds`, in the same order, once each settled (or the time is up). */
export function waitForResults(
  errand: Pick<Errand, "result">,
  runIds: readonly string[],
  options: WaitOptions = {},
): Promise<(RunResult | undefined)[]> {
  const deadline =
    options.timeoutMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + options.timeoutMs;
  return Promise.all(runIds.map((runId) => waitForOne(errand, runId, deadline, options.onSettled)));
}
