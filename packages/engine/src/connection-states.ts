/**
 * What a Redis connection's troubles look like in the log: one line when it
 * is lost (`redis connection lost`) and one when it is back (`redis
 * connection restored`), both at `warn` (a process logging only warnings
 * still shows that Redis came back), each naming the connection, instead of
 * an error event per failed reconnect. A connection without an `error` listener
 * would print `[ioredis] Unhandled error event` and a stack trace for each of
 * those; the listeners here handle every one of them. A connection that flaps
 * logs at most one loss per {@link STATE_LOG_INTERVAL_MS}: the losses in
 * between are counted on the next line.
 */
import type { Logger } from "@errand/runtime";

/** The shortest time between two `redis connection lost` lines of one connection: 10 s. */
export const STATE_LOG_INTERVAL_MS = 10_000;

/** The events of an ioredis client (single server or Cluster) this module listens to. */
interface ConnectionEvents {
  on(event: "error", listener: (error: Error) => void): unknown;
  on(event: "reconnecting" | "ready", listener: () => void): unknown;
}

/** `error`'s message on one line. */
function describe(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/\s+/g, " ").trim();
}

/** What the state lines are logged through: errand's `Logger` is one. */
export type ConnectionStateLogger = Pick<Logger, "warn">;

/**
 * Handles the `error` events of `connection` (named `name` on its lines) and
 * logs its state changes through `logger`. A connection is lost at its first
 * error or reconnect after being ready (or before it ever was), restored at
 * its next `ready`. A loss within {@link STATE_LOG_INTERVAL_MS} of the last
 * logged one is counted, not logged, and so is the return that follows it.
 */
export function watchConnectionStates(
  connection: ConnectionEvents,
  logger: ConnectionStateLogger,
  name: string,
): void {
  let lost = false;
  let lossLogged = false;
  let lastLossLogAt = Number.NEGATIVE_INFINITY;
  let unloggedLosses = 0;
  const loseWith = (error?: Error) => {
    if (lost) return;
    lost = true;
    const now = Date.now();
    if (now - lastLossLogAt < STATE_LOG_INTERVAL_MS) {
      unloggedLosses += 1;
      lossLogged = false;
      return;
    }
    lastLossLogAt = now;
    lossLogged = true;
    const fields = {
      connection: name,
      ...(error === undefined ? {} : { error: describe(error) }),
      ...(unloggedLosses === 0 ? {} : { lossesNotLogged: unloggedLosses }),
    };
    unloggedLosses = 0;
    logger.warn(fields, "redis connection lost");
  };
  connection.on("error", (error) => loseWith(error));
  connection.on("reconnecting", () => loseWith());
  connection.on("ready", () => {
    if (!lost) return;
    lost = false;
    if (lossLogged) logger.warn({ connection: name }, "redis connection restored");
  });
}
