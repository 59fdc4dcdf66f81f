/**
 * What Redis going away looks like in a process's log: one line when the
 * first of its connections is lost (`redis connection lost`) and one when
 * the last of them is back (`redis connection restored`, with how many were
 * lost), both at `warn` (a process logging only warnings still shows that
 * Redis came back), naming the connection, instead of an error event per
 * failed reconnect of each connection. A connection without an `error`
 * listener would print `[ioredis] Unhandled error event` and a stack trace
 * for each of those; the listeners here handle every one of them. A process
 * whose connections flap logs at most one loss per
 * {@link STATE_LOG_INTERVAL_MS}: the outages in between are counted on the
 * next line.
 */
import type { Logger } from "@errand/runtime";

/** The shortest time between two `redis connection lost` lines of a process: 10 s. */
export const STATE_LOG_INTERVAL_MS = 10_000;

/** The events of an ioredis client (single server or Cluster) this module listens to. */
interface ConnectionEvents {
  on(event: "error", listener: (error: Error) => void): unknown;
  on(event: "reconnecting" | "ready" | "end", listener: () => void): unknown;
}

/** What the state lines are logged through: errand's `Logger` is one. */
export type ConnectionStateLogger = Pick<Logger, "warn">;

/** `error`'s message on one line. */
function describe(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/\s+/g, " ").trim();
}

/** The connections of this process that are lost now, and what was logged of their outage. */
const outage = {
  lost: new Set<ConnectionEvents>(),
  /** How many connections were lost since the outage began. */
  connections: 0,
  logged: false,
  lastLogAt: Number.NEGATIVE_INFINITY,
  notLogged: 0,
};

/** Marks `connection` lost; the first of an outage logs it (rate-limited). */
function markLost(
  connection: ConnectionEvents,
  logger: ConnectionStateLogger,
  name: string,
  error?: Error,
) {
  if (outage.lost.has(connection)) return;
  outage.lost.add(connection);
  outage.connections += 1;
  if (outage.lost.size > 1) return;
  const now = Date.now();
  if (now - outage.lastLogAt < STATE_LOG_INTERVAL_MS) {
    outage.notLogged += 1;
    outage.logged = false;
    return;
  }
  outage.lastLogAt = now;
  outage.logged = true;
  const fields = {
    connection: name,
    ...(error === undefined ? {} : { error: describe(error) }),
    ...(outage.notLogged === 0 ? {} : { outagesNotLogged: outage.notLogged }),
  };
  outage.notLogged = 0;
  logger.warn(fields, "redis connection lost");
}

/**
 * Forgets a lost `connection` (back, or closed for good); true when it was
 * the last one lost: the outage is over.
 */
function forget(connection: ConnectionEvents): boolean {
  if (!outage.lost.delete(connection) || outage.lost.size > 0) return false;
  outage.connections = 0;
  outage.logged = false;
  return true;
}

/** Marks `connection` back; the last of an outage logs it when its loss was logged. */
function markRestored(connection: ConnectionEvents, logger: ConnectionStateLogger, name: string) {
  const logged = outage.logged;
  const connections = outage.connections;
  if (!forget(connection)) return;
  if (logged) logger.warn({ connection: name, connections }, "redis connection restored");
}

/**
 * Handles the `error` events of `connection` (named `name` on its lines) and
 * logs the state changes of the process's connections through `logger`. A
 * connection is lost at its first error or reconnect after being ready (or
 * before it ever was), restored at its next `ready`, and forgotten when it
 * ends (closed, or never to reconnect).
 */
export function watchConnectionStates(
  connection: ConnectionEvents,
  logger: ConnectionStateLogger,
  name: string,
): void {
  connection.on("error", (error) => markLost(connection, logger, name, error));
  connection.on("reconnecting", () => markLost(connection, logger, name));
  connection.on("ready", () => markRestored(connection, logger, name));
  connection.on("end", () => {
    forget(connection);
  });
}
