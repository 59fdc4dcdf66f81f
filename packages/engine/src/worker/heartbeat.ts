/**
 * Heartbeats: while it runs, a worker keeps its agents' registrations fresh
 * (`lastSeenAt`) and its own entry under `keys.workers`, which it removes when
 * it closes gracefully. A registration outlives its workers on purpose: runs
 * can still be fired while workers restart.
 */
import { hostname } from "node:os";
import { z } from "zod";
import type { RedisConnection } from "../connection.js";
import type { EngineKeys } from "../engine-keys.js";
import { type AgentRegistration, registerAgents } from "../registry.js";

/** How often a worker beats when not told: every 10 s. */
export const DEFAULT_HEARTBEAT_MS = 10_000;

/** A live worker, as it announces itself under `keys.workers`. */
export const WorkerHeartbeat = z.object({
  workerId: z.string().min(1),
  agents: z.array(z.string()),
  queues: z.array(z.string()),
  concurrency: z.number().int().positive(),
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
  /** Its agents' registrations; `lastSeenAt` is set at each beat. */
  registrations: readonly AgentRegistration[];
  queues: readonly string[];
  concurrency: number;
  intervalMs?: number;
  /** Told about a beat that failed (the next one tries again). */
  onError(error: unknown): void;
}

/** A running heartbeat. */
export interface Heartbeat {
  /** Stops beating and removes the worker's entry (its registrations stay). */
  stop(): Promise<void>;
}

/** Beats once (resolving when written), then every `intervalMs` until stopped. */
export async function startHeartbeat(options: HeartbeatOptions): Promise<Heartbeat> {
  const { redis, keys, workerId } = options;
  const startedAt = new Date().toISOString();
  const beat = async () => {
    const lastSeenAt = new Date().toISOString();
    const heartbeat: WorkerHeartbeat = {
      workerId,
      agents: options.registrations.map((registration) => registration.name),
      queues: [...options.queues],
      concurrency: options.concurrency,
      pid: process.pid,
      host: hostname(),
      startedAt,
      lastSeenAt,
    };
    await Promise.all([
      registerAgents(
        redis,
        keys,
        options.registrations.map((registration) => ({ ...registration, lastSeenAt })),
      ),
      redis.hset(keys.workers, workerId, JSON.stringify(heartbeat)),
    ]);
  };
  await beat();
  const timer = setInterval(() => {
    beat().catch(options.onError);
  }, options.intervalMs ?? DEFAULT_HEARTBEAT_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await redis.hdel(keys.workers, workerId);
    },
  };
}

/** Every worker heartbeat under `keys.workers` (entries that do not parse are skipped). */
export async function readWorkerHeartbeats(
  redis: RedisConnection,
  keys: EngineKeys,
): Promise<WorkerHeartbeat[]> {
  const entries = Object.values(await redis.hgetall(keys.workers));
  return entries.flatMap((raw) => {
    try {
      const parsed = WorkerHeartbeat.safeParse(JSON.parse(raw));
      return parsed.success ? [parsed.data] : [];
    } catch {
      return [];
    }
  });
}
