/**
 * How long firing waits out a Redis that cannot answer now (see
 * `transient-redis.ts`) before it answers with the error.
 */
import type { RedisTrouble } from "../redis/transient-redis.js";

/**
 * How long `fire` and `fireMany` wait out a Redis Cluster moving, a server
 * loading or a lost connection before they answer, in ms; `fire` waits the
 * run's own `deadlineMs` when shorter. Enqueuing a run whose log is written
 * waits as long before the run is taken back.
 */
export const FIRE_PATIENCE_MS = 30_000;

/** What firing waits out: every transient Redis error but a lack of memory, which an operator must end. */
export const FIRE_WAITS_OUT: readonly RedisTrouble[] = [
  "cluster-moving",
  "loading",
  "connection-lost",
];
