/**
 * Bounded polling for conditions outside our process (a server coming up, a
 * process going away) that offer no event to wait on.
 */
import { setTimeout as delay } from "node:timers/promises";

/** Options of {@link waitUntil}. */
export interface WaitUntilOptions {
  /** Give up after this long. */
  timeoutMs: number;
  /** Pause between checks. Default 25 ms. */
  intervalMs?: number;
}

/**
 * Calls `check` until it returns a value other than `undefined` and resolves
 * with it, or resolves `undefined` once `timeoutMs` has passed. The caller
 * decides what a timeout means (usually an error that says what never happened).
 */
export async function waitUntil<T>(
  check: () => Promise<T | undefined> | T | undefined,
  options: WaitUntilOptions,
): Promise<T | undefined> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() >= deadline) return undefined;
    await delay(options.intervalMs ?? 25);
  }
}
