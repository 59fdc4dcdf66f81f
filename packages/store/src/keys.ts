/**
 * The Redis key layout (docs/architecture/redis-layout.md): a run's log, head and blobs,
 * its shard's stream, and its outcomes — result, children,
 * the shard's run indexes, deadlines and settled channel — and the
 * idempotency keys runs are fired under. Every key of a run carries its shard's
 * hash tag `{sN}`, and the shard is read from the runId itself, so every key
 * one script touches lands on the same Redis Cluster slot and a lookup needs
 * no table.
 */
import { ErrandError } from "@errand/core";
import { MAX_SHARDS, shardOfRunId } from "@errand/core/ops";

/** The key prefix used when none is given. */
export const DEFAULT_KEY_PREFIX = "errand";

/** Every key name of the store, for one prefix. */
export interface StoreKeys {
  /** The prefix every key starts with. */
  readonly prefix: string;
  /** The run's events: STREAM, entry id `0-<seq>`, fields seq, type, at, data. */
  runLog(runId: string): string;
  /** The run's head (seq, status, attempt, hasOutput, …): HASH, the fence of appends. */
  runHead(runId: string): string;
  /** The run's large values: HASH, field `<n>` the value and `<n>:meta` its metadata. */
  runBlobs(runId: string): string;
  /**
   * Where the append script copies a settled run's log to rewrite it at its
   * exact size, renamed back over the log within the same call: it never
   * exists between calls.
   */
  runLogRewrite(runId: string): string;
  /**
   * The run's live channel (docs/architecture/redis-layout.md#the-live-channel-streaming): STREAM of the current model
   * request's deltas, field `d` (JSON), trimmed at each request's `start` and
   * to `LIVE_MAX_ENTRIES`, expiring `LIVE_TTL_MS` after its last write.
   */
  runLive(runId: string): string;
  /** Every event of the shard: STREAM, fields runId, seq, type, at, data. */
  shardEvents(shard: number): string;
  /** The run's folded RunResult: STRING (JSON), written by the collector. */
  result(runId: string): string;
  /**
   * The children fired by a run, written when each is fired: ZSET with score
   * 0 and member the child's runId, so that lexicographic order (runIds start
   * with their time) is creation order; in the parent's shard.
   */
  children(runId: string): string;
  /**
   * The run fired under an idempotency key: STRING, the runId, expiring
   * with the key's TTL; `digest` is the key's SHA-256 in base64url, and the
   * shard is the one the key places its run on (see `idempotency.ts`).
   */
  idempotency(shard: number, digest: string): string;
  /** Pub/sub channel announcing that results of a shard were written (wakes waiters). */
  settledChannel(shard: number): string;
  /** Runs of a shard with a deadline not yet settled: ZSET, score deadline (ms), member runId. */
  deadlines(shard: number): string;
  /**
   * Every run of a shard, for `list`: ZSET with score 0, member
   * `<createdAt ms, 15 digits>:<runId>`, so that lexicographic order is creation order.
   */
  runIndex(shard: number): string;
  /** The runs of a shard by status, members as in {@link runIndex}: `active` (queued or running) or a settled status. */
  runIndexByStatus(shard: number, status: "active" | "succeeded" | "failed" | "cancelled"): string;
  /** The runs of a shard by agent, members as in {@link runIndex}. */
  runIndexByAgent(shard: number, agent: string): string;
  /** The runs of a shard by tenant (`run-queued.tenant`), members as in {@link runIndex}. */
  runIndexByTenant(shard: number, tenant: string): string;
}

/**
 * The hash tag of a shard: `{s<shard>}`. Throws an {@link ErrandError}
 * `invalid_spec` for a shard outside 0 … `MAX_SHARDS` − 1.
 */
export function shardTag(shard: number): string {
  if (!Number.isInteger(shard) || shard < 0 || shard >= MAX_SHARDS) {
    throw new ErrandError(
      "invalid_spec",
      `a shard is an integer from 0 to ${MAX_SHARDS - 1}, not ${shard}`,
      { details: { shard } },
    );
  }
  return `{s${shard}}`;
}

/**
 * The key names for `prefix` (default `errand`). Throws an {@link ErrandError}
 * `invalid_spec` for an empty prefix or one containing `{` or `}`, which would
 * take the place of the shard's hash tag.
 */
export function storeKeys(prefix: string = DEFAULT_KEY_PREFIX): StoreKeys {
  if (prefix === "" || /[{}]/.test(prefix)) {
    throw new ErrandError(
      "invalid_spec",
      `a key prefix must be non-empty and free of "{" and "}" (they would replace the shard's hash tag), not ${JSON.stringify(prefix)}`,
      { details: { prefix } },
    );
  }
  const ofShard: ShardKeys[] = [];
  /** The keys of `shard` that name no run, made once per shard (throws for a shard out of range). */
  const shardKeys = (shard: number): ShardKeys => {
    const made = ofShard[shard];
    if (made !== undefined) return made;
    const making = shardKeysOf(`${prefix}:${shardTag(shard)}`);
    ofShard[shard] = making;
    return making;
  };
  let lastRunId: string | undefined;
  let lastRunBase = "";
  /** The base of a run's own keys; the last one is kept, as an append names five keys of one run. */
  const runBase = (runId: string): string => {
    if (runId !== lastRunId) {
      lastRunBase = `${shardKeys(shardOfRunId(runId)).base}:run:${runId}`;
      lastRunId = runId;
    }
    return lastRunBase;
  };
  const shardBaseOfRun = (runId: string) => shardKeys(shardOfRunId(runId)).base;
  return {
    prefix,
    runLog: (runId) => `${runBase(runId)}:log`,
    runHead: (runId) => runBase(runId),
    runBlobs: (runId) => `${runBase(runId)}:blobs`,
    runLogRewrite: (runId) => `${runBase(runId)}:log:rewrite`,
    runLive: (runId) => `${shardBaseOfRun(runId)}:live:${runId}`,
    shardEvents: (shard) => shardKeys(shard).events,
    result: (runId) => `${shardBaseOfRun(runId)}:result:${runId}`,
    children: (runId) => `${shardBaseOfRun(runId)}:children:${runId}`,
    idempotency: (shard, digest) => `${shardKeys(shard).base}:idempotency:${digest}`,
    settledChannel: (shard) => shardKeys(shard).settled,
    deadlines: (shard) => shardKeys(shard).deadlines,
    runIndex: (shard) => shardKeys(shard).runIndex,
    runIndexByStatus: (shard, status) => {
      const { base, byStatus } = shardKeys(shard);
      // A status outside the type (from JavaScript) names its own, empty, index, as it always did.
      return Object.hasOwn(byStatus, status) ? byStatus[status] : `${base}:index:status:${status}`;
    },
    runIndexByAgent: (shard, agent) =>
      agent === "" ? shardKeys(shard).byNoAgent : `${shardKeys(shard).base}:index:agent:${agent}`,
    runIndexByTenant: (shard, tenant) =>
      tenant === ""
        ? shardKeys(shard).byNoTenant
        : `${shardKeys(shard).base}:index:tenant:${tenant}`,
  };
}

/**
 * The keys of one shard that name no run, made once: every append and
 * index call names eight of them, and a key made anew each time is several
 * strings the heap allocates (and ioredis copies flat to write it).
 */
interface ShardKeys {
  /** `<prefix>:{s<shard>}`, the start of every key of the shard. */
  base: string;
  events: string;
  settled: string;
  deadlines: string;
  runIndex: string;
  byStatus: Record<"active" | "succeeded" | "failed" | "cancelled", string>;
  /** The agent's index an append names when it opens no run (no agent). */
  byNoAgent: string;
  /** The tenant's index an append names when it opens no run, or opens one without a tenant. */
  byNoTenant: string;
}

/** The {@link ShardKeys} of the shard whose keys start with `base`. */
function shardKeysOf(base: string): ShardKeys {
  return {
    base,
    events: `${base}:events`,
    settled: `${base}:settled`,
    deadlines: `${base}:deadlines`,
    runIndex: `${base}:index:runs`,
    byStatus: {
      active: `${base}:index:status:active`,
      succeeded: `${base}:index:status:succeeded`,
      failed: `${base}:index:status:failed`,
      cancelled: `${base}:index:status:cancelled`,
    },
    byNoAgent: `${base}:index:agent:`,
    byNoTenant: `${base}:index:tenant:`,
  };
}
