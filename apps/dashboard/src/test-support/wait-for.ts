/**
 * Waiting for a condition that only a read can tell (an overview count, a
 * page's text): bounded polling, failing with what never happened.
 * Test-only: not exported.
 */
import { setTimeout as delay } from "node:timers/promises";

/** Calls `check` every `intervalMs` until it returns a value (not `undefined`); throws `what` after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined>,
  { timeoutMs = 15_000, intervalMs = 100 } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() >= deadline) throw new Error(`timed out after ${timeoutMs} ms: ${what}`);
    await delay(intervalMs);
  }
}
