/**
 * Closing within a deadline whether Redis answers or not. A graceful close
 * waits for Redis (a heartbeat removed, a connection's pending replies), and
 * with Redis unreachable those commands wait for it forever: the connections
 * keep them queued until they reconnect. So every part of the engine closes
 * through {@link closeWithin}: past its deadline, it logs
 * {@link CLOSED_WITHOUT_REDIS} and cuts its connections (their queued
 * commands fail), and what is left of the close then runs to its end at
 * once. A run the process held is resumed elsewhere from its log once its
 * job's lock lapses.
 */
import type { Logger } from "@errand/runtime";
import { isTransientRedisError } from "./transient-redis.js";

/**
 * How long closing connections may take past a grace period (a worker's) or
 * when there is none (a collector's, a reaper's), in ms: 5,000.
 */
export const CLOSE_ALLOWANCE_MS = 5_000;

/**
 * How long closing connections may take when nothing is left to drain (a
 * worker without an active run), in ms: 1,000. A Redis that answers closes
 * them within milliseconds; one that is gone or frozen has nothing of the
 * process's to wait for.
 */
export const IDLE_CLOSE_ALLOWANCE_MS = 1_000;

/** The line a part logs when it closed without waiting for Redis. */
const CLOSED_WITHOUT_REDIS = "Redis unreachable; closed without waiting for it";

/** Resolves `true` once `promise` settles (rejecting if it rejects), or `false` after `ms`. */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs `steps` in order, each one also when a step before it failed (a
 * connection cut under it), and rejects with the first failure once all ran.
 */
export async function runEach(steps: readonly (() => Promise<unknown>)[]): Promise<void> {
  let failure: { error: unknown } | undefined;
  for (const step of steps) {
    try {
      await step();
    } catch (error) {
      failure ??= { error };
    }
  }
  if (failure) throw failure.error;
}

/** Options of {@link closeWithin}. */
export interface CloseWithinOptions {
  /** The graceful close. */
  close(): Promise<void>;
  /** How long it may take, in ms. */
  withinMs: number;
  /** Cuts the connections whose commands the close may be waiting for (`disconnect()`). */
  cut(): void;
  logger: Logger;
}

/**
 * Runs the graceful close and resolves when it ends, or after `withinMs`,
 * or when it fails because Redis is gone (a transient Redis error such as
 * `Connection is closed.`, see `transient-redis.ts`): in those two cases it
 * logs {@link CLOSED_WITHOUT_REDIS}, cuts the connections and resolves; the
 * rest of the close runs on, its failure ignored (its connections are gone).
 * It rejects only when the close fails for another reason.
 */
export async function closeWithin(options: CloseWithinOptions): Promise<void> {
  const startedAt = Date.now();
  const closing = options.close();
  try {
    if (await settlesWithin(closing, options.withinMs)) return;
  } catch (error) {
    if (!isTransientRedisError(error)) throw error;
  }
  closing.catch(() => undefined);
  options.logger.warn({ waitedMs: Date.now() - startedAt }, CLOSED_WITHOUT_REDIS);
  options.cut();
}
