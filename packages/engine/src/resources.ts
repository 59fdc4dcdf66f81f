/**
 * What every part of the engine works with, built once by each composition
 * root — `createErrand`, `createWorker`, `createCollector`, `createReaper`,
 * `createRunReads` — from the options they share: a command connection, the
 * keys, the store on that connection, the clock and the logger. Each part's
 * context is these resources plus what that part alone needs.
 */
import type { Logger } from "@errand/runtime";
import {
  createEventStore,
  type Durability,
  type EventStore,
  type LogEntries,
  type RunKeyExpiry,
} from "@errand/store";
import { type EngineKeys, engineKeys } from "./engine-keys.js";
import { createLogger } from "./logger.js";
import {
  type ConnectionInput,
  type ConnectionOptions,
  openConnection,
  type RedisConnection,
} from "./redis/connection.js";

/** The clock of events, deadlines and heartbeats. */
export type Clock = () => Date;

/** The system clock. */
export const systemClock: Clock = () => new Date();

/** The options every composition root takes. */
export interface EngineOptions {
  /**
   * Redis: a URL, ioredis options, or a client (duplicated, never used
   * directly). Required: `undefined` or an empty URL (an unset `REDIS_URL`)
   * is refused with `redis_unavailable`, never read as `localhost:6379`.
   */
  connection: ConnectionInput;
  /** The prefix of every key. Default `errand`. */
  prefix?: string;
  /**
   * How many shards new runs are spread over, and the shards read and
   * indexed: 0 … `shards` − 1. Default 16; give every process the same.
   */
  shards?: number;
  /**
   * How long a settled run is kept, in seconds: the TTL its log, head and
   * blobs get from the writer that settles it, which its result and
   * children then follow. Default 7 days. Give every process of a
   * deployment the same (docs/architecture/redis-layout.md).
   */
  retentionSeconds?: number;
  /**
   * When an append that settles a run or records its output, and a fire
   * (`fire`, `fireMany`, `spawn_agents`), is acknowledged: `"acknowledged"`
   * (default) once the Redis master has it; `"replicated"` once one replica
   * has it too (`WAIT 1`, once per master for a fire of many), so that a
   * failover cannot lose it but for the rarest case
   * (docs/architecture/redis-layout.md#durability). A replica that does not
   * answer within `replicationTimeoutMs` makes the append a retryable error,
   * and a fire a retryable `redis_unavailable` naming its run (fired, not
   * confirmed) in `details.runId`.
   */
  durability?: Durability;
  /** How long a `"replicated"` append waits for a replica, in ms. Default 1000. */
  replicationTimeoutMs?: number;
  /**
   * How an append of several events is written to a run's log: `"per-append"`
   * (default) as one entry; `"per-event"` as one entry per event, the only
   * shape versions before this option read (and writes run jobs' data as
   * `{ runId }` alone, all they read). Give `"per-event"` to every
   * process while any older one runs
   * (docs/architecture/redis-layout.md#upgrading-to-one-log-entry-per-append).
   */
  logEntries?: LogEntries;
  /**
   * Which of a run's optional keys (blobs, children) the append that settles
   * it gives their expiry: `"flagged"` (default) those its head flags, for a
   * run created since this process started; `"all"` every one, as versions
   * before the flags did. Give `"all"` to every process while any older one
   * runs: it writes no flags
   * (docs/architecture/redis-layout.md#upgrading-to-flagged-blobs-and-children).
   */
  runKeyExpiry?: RunKeyExpiry;
  /** The clock. Default the system clock. */
  now?: Clock;
  /** Where log lines go. Default {@link createLogger}() (JSON on stdout, `ERRAND_LOG_LEVEL`). */
  logger?: Logger;
}

/** The shared resources of one composition root. */
export interface EngineResources {
  /** The command connection (never used for blocking reads or subscriptions). */
  redis: RedisConnection;
  keys: EngineKeys;
  /** The store on {@link redis}. */
  store: EventStore;
  /**
   * How the store writes an append to a run's log ({@link EngineOptions.logEntries});
   * `"per-event"`, the first step of the upgrade, also keeps a run's job
   * data to the `{ runId }` older workers read (docs/architecture/worker.md#the-run-queued-a-job-carries).
   */
  logEntries?: LogEntries;
  now: Clock;
  logger: Logger;
}

/** How a root's command connection is opened: its name, and what it changes from its input. */
export type CommandConnection = Omit<ConnectionOptions, "logger">;

/**
 * Opens the resources of a root: a command connection like
 * `options.connection` (named and changed as `command` says, its state
 * changes logged by the root's logger), the keys of its prefix and the store
 * on that connection. Throws `invalid_spec` for a bad prefix, shard count or
 * retention, and `redis_unavailable` when no Redis is given.
 */
export function openResources(options: EngineOptions, command: CommandConnection): EngineResources {
  const keys = engineKeys(options.prefix);
  const logger = options.logger ?? createLogger();
  const redis = openConnection(options.connection, { ...command, logger });
  let store: EventStore;
  try {
    store = createEventStore({
      redis,
      prefix: keys.prefix,
      ...(options.shards === undefined ? {} : { shards: options.shards }),
      ...(options.retentionSeconds === undefined
        ? {}
        : { retentionSeconds: options.retentionSeconds }),
      ...(options.durability === undefined ? {} : { durability: options.durability }),
      ...(options.replicationTimeoutMs === undefined
        ? {}
        : { replicationTimeoutMs: options.replicationTimeoutMs }),
      ...(options.logEntries === undefined ? {} : { logEntries: options.logEntries }),
      ...(options.runKeyExpiry === undefined ? {} : { runKeyExpiry: options.runKeyExpiry }),
    });
  } catch (error) {
    redis.disconnect();
    throw error;
  }
  return {
    redis,
    keys,
    store,
    ...(options.logEntries === undefined ? {} : { logEntries: options.logEntries }),
    now: options.now ?? systemClock,
    logger,
  };
}
