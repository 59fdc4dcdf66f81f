/**
 * Heartbeats: while it runs, a worker keeps its queue's records in the
 * registry fresh (`lastSeenAt`) and its own heartbeat key (`keys.worker(id)`,
 * listed in the `keys.workers` set). That key expires {@link LIVE_HEARTBEATS}
 * beats after the last one, so a worker that crashed leaves no heartbeat
 * behind; one that closes gracefully removes it at once. The registry's
 * records outlive their workers on purpose: runs can still be fired while
 * workers restart.
 */
import { hostname } from "node:os";
import { z } from "zod";
import type { EngineKeys } from "../engine-keys.js";
import { LIVE_HEARTBEATS, type QueueRecords, registerQueue } from "../queues/registry.js";
import type { RedisConnection } from "../redis/connection.js";

/** How often a worker beats when not told: every 10 s. */
export const DEFAULT_HEARTBEAT_MS = 10_000;

/** A live worker, as it announces itself under `keys.worker(workerId)`. */
export const WorkerHeartbeat = z.object({
  workerId: z.string().min(1),
  agents: z.array(z.string()),
  queues: z.array(z.string()),
  /** The version of each of its agents, by name (empty for workers older than versions). */
  versions: z.record(z.string(), z.string()).default({}),
  concurrency: z.number().int().positive(),
  /**
   * The shards of its queue it takes runs from (`takeQueueShards`). Absent in
   * heartbeats of workers older than queue shards, which take every shard.
   */
  queueShards: z.array(z.number().int().nonnegative()).optional(),
  pid: z.number().int(),
  host: z.string(),
  startedAt: z.string(),
  lastSeenAt: z.string(),
});
export type WorkerHeartbeat = z.infer<typeof WorkerHeartbeat>;

/** What a worker beats with. */
export interface HeartbeatOptions {
  redis: RedisConnection;
  keys: EngineKeys;
  workerId: string;
  /** Its queue's records; `lastSeenAt` is set at each beat. */
  records: Required<QueueRecords>;
  concurrency: number;
  /** The shards of its queue it takes runs from. */
  queueShards: readonly number[];
  /** How often it beats, in ms: the `heartbeatMs` of its records. */
  intervalMs: number;
  /** Told about a beat that failed (the next one tries again). */
  onError(error: unknown): void;
}

/** A running heartbeat. */
export interface Heartbeat {
  /**
   * Stops beating and removes the worker's entry. Its queue's records stay;
   * when no other worker of the queue with the same versions beat lately,
   * its agents' records say those versions stopped (`stoppedAt`), so runs are
   * no longer sent to them; when no other worker of the queue at all did, the
   * queue's record says so too, and other workers may adopt its waiting runs at once.
   */
  stop(): Promise<void>;
}

/** Beats once (resolving when written), then every `intervalMs` until stopped. */
export async function startHeartbeat(options: HeartbeatOptions): Promise<Heartbeat> {
  const { redis, keys, workerId } = options;
  const startedAt = new Date().toISOString();
  const versions = Object.fromEntries(
    options.records.agents.map((agent) => [agent.name, agent.version ?? ""]),
  );
  const stamped = (lastSeenAt: string, stoppedAt?: string): Required<QueueRecords> => {
    const stop = stoppedAt === undefined ? {} : { stoppedAt };
    return {
      queue: { ...options.records.queue, lastSeenAt, ...stop },
      agents: options.records.agents.map((agent) => ({ ...agent, lastSeenAt, ...stop })),
    };
  };
  let lastSeenAt = startedAt;
  // The key first, then its id: a reader that finds the id finds the key unless it expired.
  const announce = async (heartbeat: WorkerHeartbeat) => {
    const ttlMs = LIVE_HEARTBEATS * options.intervalMs;
    await redis.set(keys.worker(workerId), JSON.stringify(heartbeat), "PX", ttlMs);
    await redis.sadd(keys.workers, workerId);
  };
  const beat = async () => {
    lastSeenAt = new Date().toISOString();
    const heartbeat: WorkerHeartbeat = {
      workerId,
      agents: [...options.records.queue.agents],
      queues: [options.records.queue.queue],
      versions,
      concurrency: options.concurrency,
      queueShards: [...options.queueShards],
      pid: process.pid,
      host: hostname(),
      startedAt,
      lastSeenAt,
    };
    await Promise.all([registerQueue(redis, keys, stamped(lastSeenAt)), announce(heartbeat)]);
  };
  await beat();
  const timer = setInterval(() => {
    beat().catch(options.onError);
  }, options.intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await redis.del(keys.worker(workerId));
      await redis.srem(keys.workers, workerId);
      const now = Date.now();
      const others = (await readWorkerHeartbeats(redis, keys)).filter(
        (other) =>
          other.queues.includes(options.records.queue.queue) &&
          now - Date.parse(other.lastSeenAt) <= LIVE_HEARTBEATS * options.intervalMs,
      );
      const stopped = stamped(lastSeenAt, new Date(now).toISOString());
      if (others.length === 0) {
        await registerQueue(redis, keys, stopped);
      } else if (!others.some((other) => sameVersions(other.versions, versions))) {
        await registerQueue(redis, keys, { agents: stopped.agents });
      }
    },
  };
}

/** Whether two workers run the same version of every agent. */
function sameVersions(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>) {
  const names = Object.keys(b);
  return Object.keys(a).length === names.length && names.every((name) => a[name] === b[name]);
}

/** A stored heartbeat, or `undefined` when the text is not one (never throws). */
function parseHeartbeat(raw: string): WorkerHeartbeat | undefined {
  try {
    const parsed = WorkerHeartbeat.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Every worker heartbeat that has not expired (the one way to read them;
 * entries that do not parse are skipped). The ids of `keys.workers` whose
 * key expired (their worker crashed) are removed from it on the way; a
 * worker whose id is removed as it beats again adds it back at its next beat.
 */
export async function readWorkerHeartbeats(
  redis: RedisConnection,
  keys: EngineKeys,
): Promise<WorkerHeartbeat[]> {
  const workerIds = await redis.smembers(keys.workers);
  // One GET each: on a Redis Cluster the keys of different workers live in different slots.
  const stored = await Promise.all(workerIds.map((workerId) => redis.get(keys.worker(workerId))));
  const expired = workerIds.filter((_, index) => stored[index] === null);
  if (expired.length > 0) await redis.srem(keys.workers, ...expired);
  return stored.flatMap((raw) => (raw === null ? [] : (parseHeartbeat(raw) ?? [])));
}
