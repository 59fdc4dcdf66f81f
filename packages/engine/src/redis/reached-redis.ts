/**
 * Which Redis servers a client (`createErrand`) of this process has ever
 * connected to, by their printed target (`redis-target.ts`, credentials
 * redacted): a client call that fails for want of a connection says it
 * *could not connect* to a Redis never reached, and that the connection
 * *was lost* to one reached before.
 */

/** The targets a connection of this process has been ready on at least once. */
const reached = new Set<string>();

/** Records that a connection to `target` was ready once. */
export function markRedisReached(target: string): void {
  reached.add(target);
}

/** True once a connection of this process to `target` has been ready. */
export function wasRedisReached(target: string): boolean {
  return reached.has(target);
}
