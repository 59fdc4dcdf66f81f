/**
 * `createEventStore`: the run log on Redis, composed from its parts — keys,
 * the fenced append script, readers, the follower and blobs — around one client.
 */
import { randomInt } from "node:crypto";
import {
  ErrandError,
  isTerminalEventType,
  type LiveDelta,
  type LiveEntry,
  type NewEvent,
  newRunId,
  type ResourceRef,
  type RunEvent,
} from "@errand/core";
import {
  MAX_SHARDS,
  RUN_ID_RANDOM_BYTES,
  requireWholeNumber,
  shardOfRunId,
} from "@errand/core/ops";
import { type BlobContent, getBlob, putBlob } from "./blobs.js";
import { encodeEventArgs, type ShardEntry } from "./codec.js";
import { errorFromScriptReply, SCRIPT_CODES } from "./errors.js";
import { type FollowLogOptions, followLog } from "./follow.js";
import { type FollowLiveOptions, followLive } from "./follow-live.js";
import type { RunHead } from "./head.js";
import {
  type IdempotencyKey,
  idempotencyRedisKey,
  idempotencyRedisKeyOfRun,
  idempotencyShard,
} from "./idempotency.js";
import { type StoreKeys, storeKeys } from "./keys.js";
import { appendLive, readLive } from "./live.js";
import { placeEvents, validateNewEvents } from "./new-events.js";
import { runIndexMember } from "./outcomes/index-runs.js";
import { isAppendedAlready } from "./own-append.js";
import { randomPool } from "./random-pool.js";
import {
  type ReadLogOptions,
  type ReadShardOptions,
  readHead,
  readLog,
  readShard,
} from "./readers.js";
import {
  DEFAULT_REPLICATION_TIMEOUT_MS,
  type Durability,
  keysNotReplicated,
  waitForReplica,
} from "./replication.js";
import { defineStoreScripts, type RedisClient } from "./scripts.js";
import { defineWithdraw, type RunToWithdraw, type Withdrawal } from "./withdraw.js";

/** How many shards new runs are spread over when not told. */
export const DEFAULT_SHARDS = 16;

/** How long a settled run's log, head and blobs are kept when not told: 7 days. */
const DEFAULT_RETENTION_SECONDS = 7 * 24 * 60 * 60;

/** Options of {@link createEventStore}. */
export interface EventStoreOptions {
  /** The client: a `Redis` or a `Cluster` from ioredis. The store defines its scripts on it. */
  redis: RedisClient;
  /** The prefix of every key. Default `errand`. */
  prefix?: string;
  /**
   * How many shards NEW runs are spread over, 1 … `MAX_SHARDS`. Default 16.
   * Existing runs keep the shard written in their id, so this may change over time.
   */
  shards?: number;
  /** How long a settled run's log, head and blobs are kept, in seconds. Default 7 days. */
  retentionSeconds?: number;
  /**
   * When an append that settles a run or records its output is acknowledged:
   * `"acknowledged"` (default) once the master has it; `"replicated"` once one
   * replica has it too (`WAIT`, see `replication.ts`). A fire confirms the
   * runs it opened with {@link EventStore.runsNotReplicated}.
   */
  durability?: Durability;
  /** How long a `"replicated"` append waits for a replica, in ms. Default {@link DEFAULT_REPLICATION_TIMEOUT_MS}. */
  replicationTimeoutMs?: number;
  /**
   * How an append of several events is written to the run's log:
   * `"per-append"` (default) as one entry, `"per-event"` as one entry per
   * event, the only shape that readers older than this option read. Give
   * `"per-event"` while such readers still run (a rolling deploy from an
   * older version: docs/architecture/redis-layout.md#upgrading-to-one-log-entry-per-append).
   * Readers read both, in any mix.
   */
  logEntries?: LogEntries;
  /**
   * Which of a run's optional keys (its blobs, its children) an append that
   * settles the run gives their expiry: `"flagged"` (default) those its head
   * flags (`hasBlobs`, `hasChildren`, written with the first blob and the
   * first child), for a run created since this store was; every one for an
   * older run; `"all"` every one, whatever the flags. Give `"all"` while
   * processes older than this option still run: they write no flags
   * (docs/architecture/redis-layout.md#upgrading-to-flagged-blobs-and-children).
   */
  runKeyExpiry?: RunKeyExpiry;
}

/** Which optional keys of a run its settling append gives their expiry (see {@link EventStoreOptions.runKeyExpiry}). */
export type RunKeyExpiry = "all" | "flagged";

/** How an append of several events is written to a run's log (see {@link EventStoreOptions.logEntries}). */
export type LogEntries = "per-append" | "per-event";

/**
 * What {@link EventStore.createRun} did: made the run, or found the run its
 * idempotency key names (fired within the key's TTL; nothing was written).
 */
export type CreatedRun =
  | { deduplicated: false; events: RunEvent[] }
  | { deduplicated: true; runId: string };

/** The run log on Redis. */
export interface EventStore {
  /** The key names, for other packages (projections, the collector, the dashboard). */
  readonly keys: StoreKeys;
  /** How many shards new runs are spread over: shards 0 … `shards` − 1. */
  readonly shards: number;
  /** How long a settled run is kept, in seconds. */
  readonly retentionSeconds: number;
  /**
   * A new run id stamped with the current time, on a random shard of
   * 0 … `shards` − 1, or on the shard of `idempotencyKey` when given (a run
   * fired under a key must live beside it: see {@link createRun}).
   */
  newRunId(idempotencyKey?: string): string;
  /**
   * Appends `events` to the run's log in one script call (one round trip) and
   * returns them with their seqs. `expectedSeq` is the seq the writer last saw
   * (0 for a new run); `"any"` appends unfenced (a client's `cancel-requested`,
   * the reaper). An empty batch returns `[]` without a call. Nothing is
   * written when the call throws, and a batch sent again after its reply was
   * lost (by ioredis on reconnect, or by a writer's retry) resolves as its
   * first call would have, not as a stale append, nor (for a run's first
   * batch) as a run that exists or a duplicate of itself (see `own-append.ts`):
   * - `invalid_event`: an event's data does not match its schema (checked before sending,
   *   except for events marked by `markChecked`: their writer checked them);
   * - `seq_conflict` ({@link SeqConflictError}, with `currentSeq`): another writer appended first;
   * - `run_settled`: an event after a terminal event (in the log or the batch);
   * - `output_already_recorded`: a second `output-recorded`;
   * - `not_found`: the run has no log and the first event is not `run-queued`;
   * - `invalid_spec`: `run-queued` on an existing run, or not first in the batch.
   * With `durability: "replicated"`, a batch holding a terminal event or an
   * `output-recorded` also throws a retryable `redis_unavailable` when no
   * replica acknowledged it in time: then it is written on the master only.
   */
  appendEvents(
    runId: string,
    expectedSeq: number | "any",
    events: readonly NewEvent[],
  ): Promise<RunEvent[]>;
  /**
   * Opens the log of `runId` with its `run-queued`, like `appendEvents(runId,
   * 0, [queued])`, and, given `idempotency`, atomically with it: when the key
   * names a run fired within its TTL, nothing is written and that run is
   * returned (`deduplicated`); otherwise the key is set to `runId` for
   * `ttlMs`. `runId` must come from `newRunId(idempotency.key)` (`internal`
   * otherwise). Throws as `appendEvents` does, but never waits for a replica:
   * with `durability: "replicated"` its caller does, once for all the runs
   * it opened together ({@link runsNotReplicated}).
   */
  createRun(runId: string, queued: NewEvent, idempotency?: IdempotencyKey): Promise<CreatedRun>;
  /**
   * With `durability: "replicated"`, waits until one replica of each master
   * holding any of `runIds` has every write made so far on this client's
   * connection to it (one `WAIT` per master, all at once), and resolves with
   * the runs whose master had none in `replicationTimeoutMs` (or whose wait
   * failed), each with why: a retryable `redis_unavailable` for a
   * shortfall. Those runs' writes are on their master, perhaps on no replica.
   * Resolves empty at once with the default durability.
   */
  runsNotReplicated(runIds: readonly string[]): Promise<Map<string, Error>>;
  /** The run fired under the idempotency key `key`, or `undefined` when the key names none (any more). */
  readIdempotencyKey(key: string): Promise<string | undefined>;
  /** The run's events after `afterSeq` (default: all), in order; `[]` for an unknown run. */
  readLog(runId: string, options?: ReadLogOptions): Promise<RunEvent[]>;
  /** The run's head, or `undefined` for an unknown (or expired) run. */
  readHead(runId: string): Promise<RunHead | undefined>;
  /** A page of the shard's stream; a broken entry comes back with `error` instead of throwing. */
  readShard(shard: number, options?: ReadShardOptions): Promise<ShardEntry[]>;
  /**
   * The run's events as they are appended, through blocking reads on
   * `blockingConnection` (dedicated to this follower). Ends after the terminal
   * event, for an unknown run, or when `options.signal` aborts.
   */
  followLog(
    runId: string,
    options: FollowLogOptions,
    blockingConnection: RedisClient,
  ): AsyncIterable<RunEvent>;
  /**
   * The run's live deltas after `options.from` (default: the current model
   * request's answer so far), then as they are published, through blocking
   * reads on `blockingConnection` (dedicated); ends once the run has settled
   * and its channel is read (docs/architecture/redis-layout.md#the-live-channel-streaming).
   */
  followLive(
    runId: string,
    options: FollowLiveOptions,
    blockingConnection: RedisClient,
  ): AsyncIterable<LiveEntry>;
  /** What the run's live channel holds after `after` (default: all of it), without waiting. */
  readLive(runId: string, after?: string): Promise<LiveEntry[]>;
  /** Publishes deltas on the run's live channel (one transaction; a `start` empties it first). */
  appendLive(runId: string, deltas: readonly LiveDelta[]): Promise<void>;
  /** Stores a large value of the run and returns its reference. Throws `not_found` for an unknown run. */
  putBlob(runId: string, value: string, contentType: string): Promise<ResourceRef>;
  /** A stored blob by reference or URI, or `undefined` when it does not exist (or expired). */
  getBlob(ref: ResourceRef | string): Promise<BlobContent | undefined>;
  /**
   * Takes back a run its producer wrote but could not enqueue: when nothing
   * happened to it since its `run-queued` (head at seq 1, queued), its log,
   * head and blobs are deleted and it leaves its shard's indexes
   * (`withdrawn`); `absent` for a run without a head; `moved-on` (left as it
   * is) for one that a worker started or a cancel reached. Runs even when
   * Redis is out of memory: it only frees memory.
   */
  withdrawRun(run: RunToWithdraw): Promise<Withdrawal>;
}

/** Whether a `"replicated"` append of `event` waits for a replica: it settles the run or records its output. */
function mustBeReplicated(event: NewEvent): boolean {
  return isTerminalEventType(event.type) || event.type === "output-recorded";
}

/** What the append that opens a run writes in its shard's indexes: the run as queued. */
interface QueuedIndexing {
  agent: string;
  tenant?: string;
  member: string;
  /** Its deadline, ms since the epoch, as text; undefined for none. */
  deadlineMs?: string;
}

/**
 * How the batch starting with `first` indexes its run, when it opens one
 * (`run-queued`); undefined otherwise, or when its creation time cannot be
 * indexed (then the collector indexes it, and fails that run alone).
 */
function queuedIndexing(runId: string, first: NewEvent): QueuedIndexing | undefined {
  if (first.type !== "run-queued") return undefined;
  const { agent, tenant, limits } = first.data;
  let member: string;
  try {
    member = runIndexMember(first.at, runId);
  } catch {
    return undefined;
  }
  const deadline = limits.deadlineAt === undefined ? Number.NaN : Date.parse(limits.deadlineAt);
  return {
    agent,
    member,
    ...(tenant === undefined ? {} : { tenant }),
    ...(Number.isNaN(deadline) ? {} : { deadlineMs: String(deadline) }),
  };
}

/** Creates the run log on `options.redis`. */
export function createEventStore(options: EventStoreOptions): EventStore {
  const { redis, shards = DEFAULT_SHARDS, retentionSeconds = DEFAULT_RETENTION_SECONDS } = options;
  if (!Number.isInteger(shards) || shards < 1 || shards > MAX_SHARDS) {
    throw new ErrandError("invalid_spec", `shards must be 1 … ${MAX_SHARDS}, not ${shards}`, {
      details: { shards },
    });
  }
  requireWholeNumber("retentionSeconds", retentionSeconds, 1);
  const {
    durability = "acknowledged",
    replicationTimeoutMs = DEFAULT_REPLICATION_TIMEOUT_MS,
    logEntries = "per-append",
    runKeyExpiry = "flagged",
  } = options;
  if (logEntries !== "per-append" && logEntries !== "per-event") {
    throw new ErrandError("invalid_spec", `logEntries must be "per-append" or "per-event"`, {
      details: { logEntries },
    });
  }
  if (runKeyExpiry !== "all" && runKeyExpiry !== "flagged") {
    throw new ErrandError("invalid_spec", `runKeyExpiry must be "all" or "flagged"`, {
      details: { runKeyExpiry },
    });
  }
  requireWholeNumber("replicationTimeoutMs", replicationTimeoutMs, 1);
  // Every process writes the flags once this one runs "flagged" (the upgrade's second step), so a
  // run created since then has a flag for each optional key it has; an older run may not.
  const flagsSince = runKeyExpiry === "flagged" ? String(Date.now()) : "";
  const perAppend = logEntries === "per-append" ? "1" : "";
  const keys = storeKeys(options.prefix);
  const scripts = defineStoreScripts(redis);
  const runIdRandom = randomPool(RUN_ID_RANDOM_BYTES);

  /** One append call; resolves with the appended events, or with the run a duplicate key names. */
  async function append(
    runId: string,
    expectedSeq: number | "any",
    events: readonly NewEvent[],
    idempotency?: IdempotencyKey,
  ): Promise<CreatedRun> {
    if (expectedSeq !== "any") requireWholeNumber("expectedSeq", expectedSeq, 0);
    const valid = validateNewEvents(runId, events);
    if (valid.length === 0) return { deduplicated: false, events: [] };
    const shard = shardOfRunId(runId);
    const opened = queuedIndexing(runId, valid[0]!);
    const runKeys = [
      keys.runLog(runId),
      keys.runHead(runId),
      keys.shardEvents(shard),
      keys.runBlobs(runId),
      keys.runLogRewrite(runId),
      keys.runIndexByStatus(shard, "active"),
      keys.deadlines(shard),
      keys.runIndexByAgent(shard, opened?.agent ?? ""),
      keys.runIndexByTenant(shard, opened?.tenant ?? ""),
      keys.children(runId),
    ];
    if (idempotency !== undefined) {
      requireWholeNumber("idempotency ttlMs", idempotency.ttlMs, 1);
      runKeys.push(idempotencyRedisKeyOfRun(keys, idempotency.key, runId, shards));
    }
    // The script's fixed arguments as one, its words in the order of `append-11.lua`'s ARGV[2]; the
    // expiry should this batch settle the run counts the retention from this writer's clock.
    const fixed = `${expectedSeq === "any" ? "*" : expectedSeq} ${Date.now() + retentionSeconds * 1000} ${idempotency?.ttlMs ?? 0} ${perAppend} ${opened?.member ?? ""} ${opened?.deadlineMs ?? ""} ${flagsSince}`;
    const args = [runId, fixed];
    // Indexed, without a spread: each event's three arguments pushed without an iterator.
    for (let index = 0; index < valid.length; index++) {
      const encoded = encodeEventArgs(valid[index]!);
      args.push(encoded[0], encoded[1], encoded[2]);
    }
    const reply = await scripts.append(runKeys, args);
    // Read by index: a destructuring would walk the reply with an iterator.
    const code = reply[0];
    const seq = reply[1];
    const fired = reply[3];
    // A key naming this very run was set by this call's first try, whose reply was lost.
    const keyNamesThisRun = code === SCRIPT_CODES.duplicate && fired === runId;
    if (code === SCRIPT_CODES.duplicate && fired !== undefined && !keyNamesThisRun) {
      return { deduplicated: true, runId: fired };
    }
    // This very batch, sent again after its reply was lost, is refused as stale (or, when it
    // opened the run, as a run that exists already): it went in.
    const resent =
      expectedSeq !== "any" &&
      (keyNamesThisRun ||
        ((code === SCRIPT_CODES.seqConflict || code === SCRIPT_CODES.runExists) &&
          seq >= expectedSeq + valid.length)) &&
      (await isAppendedAlready(redis, keys, runId, expectedSeq, valid));
    if (keyNamesThisRun && !resent) return { deduplicated: true, runId };
    const lastSeq = resent ? expectedSeq + valid.length : seq;
    // The error's context is built only for a refusal: an appended batch makes none.
    const error =
      resent || code === SCRIPT_CODES.ok
        ? undefined
        : errorFromScriptReply(reply, {
            runId,
            expectedSeq,
            eventTypes: valid.map((event) => event.type),
          });
    if (error) throw error;
    if (durability === "replicated" && valid.some(mustBeReplicated)) {
      await waitForReplica(redis, keys.runLog(runId), replicationTimeoutMs);
    }
    return { deduplicated: false, events: placeEvents(runId, lastSeq - valid.length + 1, valid) };
  }

  async function runsNotReplicated(runIds: readonly string[]): Promise<Map<string, Error>> {
    if (durability !== "replicated" || runIds.length === 0) return new Map();
    // One key a shard: the runs of a shard share its slot, so its master and its WAIT.
    const logOfShard = new Map(runIds.map((runId) => [shardOfRunId(runId), keys.runLog(runId)]));
    const failed = await keysNotReplicated(redis, [...logOfShard.values()], replicationTimeoutMs);
    const notReplicated = new Map<string, Error>();
    for (const runId of runIds) {
      const error = failed.get(logOfShard.get(shardOfRunId(runId))!);
      if (error !== undefined) notReplicated.set(runId, error);
    }
    return notReplicated;
  }

  async function appendEvents(
    runId: string,
    expectedSeq: number | "any",
    events: readonly NewEvent[],
  ): Promise<RunEvent[]> {
    const appended = await append(runId, expectedSeq, events);
    return appended.deduplicated ? [] : appended.events;
  }

  return {
    keys,
    shards,
    retentionSeconds,
    newRunId: (idempotencyKey) =>
      newRunId({
        shard:
          idempotencyKey === undefined
            ? randomInt(shards)
            : idempotencyShard(idempotencyKey, shards),
        nowMs: Date.now(),
        random: runIdRandom(),
      }),
    appendEvents,
    createRun: (runId, queued, idempotency) => append(runId, 0, [queued], idempotency),
    runsNotReplicated,
    readIdempotencyKey: async (key) =>
      (await redis.get(idempotencyRedisKey(keys, key, idempotencyShard(key, shards)))) ?? undefined,
    readLog: (runId, readOptions) => readLog(redis, keys, runId, readOptions),
    readHead: (runId) => readHead(redis, keys, runId),
    readShard: (shard, readOptions) => readShard(redis, keys, shard, readOptions),
    followLog: (runId, followOptions, blockingConnection) =>
      followLog(redis, keys, runId, followOptions, blockingConnection),
    followLive: (runId, followOptions, blockingConnection) =>
      followLive(redis, keys, runId, followOptions, blockingConnection),
    appendLive: (runId, deltas) => appendLive(redis, keys, runId, deltas),
    readLive: (runId, after) => readLive(redis, keys, runId, after),
    putBlob: (runId, value, contentType) => putBlob({ keys, scripts }, runId, value, contentType),
    getBlob: (ref) => getBlob(redis, keys, ref),
    withdrawRun: defineWithdraw(redis, keys),
  };
}
