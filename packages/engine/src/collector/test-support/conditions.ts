/**
 * Waiting in tests for a condition that offers no event to wait on (a count
 * in Redis reaching a value, a process being gone), bounded, with a failure
 * that says what never happened. Test-only: not exported.
 */
import { setTimeout as delay } from "node:timers/promises";

/**
 * Resolves with `check()`'s first value other than undefined; throws after
 * `timeoutMs` naming `what`.
 */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() >= deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await delay(20);
  }
}
