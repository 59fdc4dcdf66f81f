/**
 * The `error` events of BullMQ's queues and workers. BullMQ re-emits the
 * errors of its connections there (a lost connection once per failed
 * reconnect), and an object without a listener prints each one with its
 * stack trace. The connections' own state lines (`connection-states.ts`) say
 * when Redis went away and came back, so connection errors are dropped here;
 * any other error is logged, at most once per {@link STATE_LOG_INTERVAL_MS}
 * per object, the ones in between counted on the next line.
 */
import type { Logger } from "@errand/runtime";
import { isNotConnectionError } from "bullmq";
import { STATE_LOG_INTERVAL_MS } from "../redis/connection-states.js";

/** Socket errors of a connection to a Redis that went away, whatever BullMQ calls them. */
const CONNECTION_ERROR_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENOTFOUND",
]);

/** True when `error` only says that the connection to Redis is down. */
function isConnectionError(error: Error): boolean {
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && CONNECTION_ERROR_CODES.has(code)) return true;
  return !isNotConnectionError(error);
}

/** A BullMQ `Queue`, `Worker` or `QueueEvents`: what emits `error`. */
interface BullErrorEmitter {
  on(event: "error", listener: (error: Error) => void): unknown;
}

/** Handles the `error` events of `emitter` (named `name` on its lines): see the module. */
export function logBullErrors(emitter: BullErrorEmitter, logger: Logger, name: string): void {
  let lastLogAt = Number.NEGATIVE_INFINITY;
  let notLogged = 0;
  emitter.on("error", (error) => {
    if (isConnectionError(error)) return;
    const now = Date.now();
    if (now - lastLogAt < STATE_LOG_INTERVAL_MS) {
      notLogged += 1;
      return;
    }
    lastLogAt = now;
    const fields = {
      component: name,
      error: error.message,
      ...(notLogged === 0 ? {} : { errorsNotLogged: notLogged }),
    };
    notLogged = 0;
    logger.error(fields, "bullmq error");
  });
}
