/**
 * `createErrand`: the client a parent fires runs with. It composes the
 * preflight, the store and the run queues around connections of its own,
 * derived from the one connection it is given.
 */
import type { RunEvent } from "@errand/core";
import { createEventStore, type EventStore } from "@errand/store";
import type { JobsOptions } from "bullmq";
import { type CancelOptions, type CancelResult, cancel } from "./cancel.js";
import { type ConnectionInput, closeConnection, openConnection } from "./connection.js";
import { type EngineKeys, engineKeys } from "./engine-keys.js";
import type { FireContext } from "./enqueue-runs.js";
import { fire } from "./fire.js";
import { type FireManyResult, fireMany } from "./fire-many.js";
import { DEFAULT_MAX_INPUT_BYTES, type FireResult, type FireSpec } from "./fire-spec.js";
import { type RunEventsOptions, runEvents } from "./run-events.js";
import { createRunQueues, DEFAULT_JOB_OPTIONS } from "./run-queues.js";

/** Options of {@link createErrand}. */
export interface ErrandOptions {
  /** Redis: a URL, ioredis options, or a client (duplicated, never used directly). */
  connection: ConnectionInput;
  /** The prefix of every key. Default `errand`. */
  prefix?: string;
  /** How many shards new runs are spread over. Default 16. */
  shards?: number;
  /** The largest input `fire` accepts, in bytes of UTF-8 JSON. Default 256 KiB. */
  maxInputBytes?: number;
  /** BullMQ options of each run's job (attempts, backoff, retention). Default {@link DEFAULT_JOB_OPTIONS}. */
  jobOptions?: JobsOptions;
  /** The clock of `run-queued`, deadlines and cancels. Default the system clock. */
  now?: () => Date;
}

/** The errand client. */
export interface Errand {
  /** Every key and name under this client's prefix. */
  readonly keys: EngineKeys;
  /** The run log this client writes to. */
  readonly store: EventStore;
  /**
   * Fires one run; resolves with its runId once its job is enqueued. Refused
   * before anything is written, with an `ErrandError`: `invalid_spec`,
   * `unknown_agent`, `unsupported_schema`, `schema_not_supported`,
   * `input_too_large`, `not_found` (parent).
   */
  fire(spec: FireSpec): Promise<FireResult>;
  /** Fires many runs: one result per spec, in order; a bad spec fails alone. */
  fireMany(specs: readonly FireSpec[]): Promise<FireManyResult>;
  /**
   * Cancels a run (with `cascade`, its descendants too). A running run is
   * aborted by the worker holding it; a waiting one is removed from its queue
   * and settled here; a settled one is left as it is (`requested: false`).
   */
  cancel(runId: string, options?: CancelOptions): Promise<CancelResult>;
  /** The run's events; with `follow`, until its terminal event. */
  events(runId: string, options?: RunEventsOptions): AsyncIterable<RunEvent>;
  /** Closes the client's queues and connections. */
  close(): Promise<void>;
}

/**
 * Creates a client.
 *
 * ```ts
 * const errand = createErrand({ connection: process.env.REDIS_URL! });
 * const { runId } = await errand.fire({ agent: "researcher", input: { question } });
 * for await (const event of errand.events(runId, { follow: true })) console.log(event.type);
 * await errand.close();
 * ```
 */
export function createErrand(options: ErrandOptions): Errand {
  const keys = engineKeys(options.prefix);
  const redis = openConnection(options.connection, { autoPipelining: true });
  const queueConnection = openConnection(options.connection);
  const store = createEventStore({
    redis,
    ...(options.prefix === undefined ? {} : { prefix: options.prefix }),
    ...(options.shards === undefined ? {} : { shards: options.shards }),
  });
  const queues = createRunQueues(queueConnection, keys, options.jobOptions ?? DEFAULT_JOB_OPTIONS);
  const context: FireContext = {
    store,
    redis,
    keys,
    queues,
    maxInputBytes: options.maxInputBytes ?? DEFAULT_MAX_INPUT_BYTES,
    now: options.now ?? (() => new Date()),
  };
  return {
    keys,
    store,
    fire: (spec) => fire(context, spec),
    fireMany: (specs) => fireMany(context, specs),
    cancel: (runId, cancelOptions) => cancel(context, runId, cancelOptions),
    events: (runId, eventsOptions) =>
      runEvents({ store, connection: options.connection }, runId, eventsOptions),
    async close() {
      await queues.close();
      await Promise.all([closeConnection(redis), closeConnection(queueConnection)]);
    },
  };
}
