/**
 * What the engine's tests share, opened on a private Redis: a client on a
 * unique prefix, worker processes started on it (all killed at the end),
 * the queue's jobs and Redis' keys that preflight tests compare, and waiting on a run's
 * log by following it (blocking reads), never by sleeping. Test-only: not
 * exported.
 */
import { isTerminalEventType, type RunEvent } from "@errand/core";
import { type RedisServer, uniqueKeyPrefix } from "@errand/testing";
import { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { expect } from "vitest";
import { createErrand, type Errand } from "../client/client.js";
import type { EngineRedisFixture } from "../collector/test-support/redis-fixture.js";
import { queueOfAgents } from "../queues/agent-queues.js";
import { TEST_AGENTS, testCounterKeys } from "./test-agents.js";
import {
  killWorkers,
  type SpawnWorkerOptions,
  spawnWorker,
  type WorkerProcess,
} from "./worker-processes.js";

/** Fast takeover settings for worker processes: a lapsed lock is noticed within about a second. */
export const FAST_TAKEOVER = { lockDurationMs: 1_000, stalledIntervalMs: 500, maxStalledCount: 5 };

/** The queue's job counts and every key in Redis, each with whether it expires. */
interface Footprint {
  keys: Record<string, { expires: boolean }>;
  jobs: Record<string, number>;
}

/** A Redis, a client and helpers for one test file. */
export interface EngineFixture {
  server: RedisServer;
  /** A plain client for assertions. */
  redis: Redis;
  prefix: string;
  errand: Errand;
  counters: ReturnType<typeof testCounterKeys>;
  /** The BullMQ queue of the test agents' workers (for counts). */
  queue: Queue;
  /** Starts a worker process on this Redis and prefix. */
  spawn(workerId: string, options?: Partial<SpawnWorkerOptions>): Promise<WorkerProcess>;
  /** The run's events, following its log until `until` matches an event (default: the terminal event). */
  waitForEvent(runId: string, until?: (event: RunEvent) => boolean): Promise<RunEvent[]>;
  /** The job counts of the queue and the keys in Redis. */
  footprint(): Promise<Footprint>;
  /**
   * Asserts that nothing was written since `before`: the same job counts, no
   * key that was not there, and none gone but those that expire (an earlier
   * test's keys may lapse meanwhile: the Redis is the file's).
   */
  expectNothingWrittenSince(before: Footprint): Promise<void>;
  /** Kills every worker process started so far (SIGKILL), so the next test starts with none. */
  killWorkers(): Promise<void>;
  /** Kills the worker processes and closes the clients it opened (not the Redis it was opened on). */
  stop(): Promise<void>;
}

/**
 * Opens the engine's parts on a private Redis, its keys under a prefix made
 * from `label`. The vitest fixture `fx` of `engineTest` (engine-test.ts).
 */
export async function openEngineFixture(
  engineRedis: EngineRedisFixture,
  label: string,
): Promise<EngineFixture> {
  const { server, redis } = engineRedis;
  const prefix = uniqueKeyPrefix(`engine-${label}`);
  const errand = createErrand({ connection: server.url, prefix });
  // BullMQ leaves open a connection it is given: closed here, else it would retry
  // the stopped Redis without an error listener ("[ioredis] Unhandled error event").
  const queueConnection = redis.duplicate();
  const queue = new Queue(queueOfAgents(prefix, Object.values(TEST_AGENTS)), {
    connection: queueConnection,
    prefix: errand.keys.bullmqPrefix,
  });
  const workers: WorkerProcess[] = [];
  async function footprint(): Promise<Footprint> {
    const [all, jobs] = await Promise.all([redis.keys("*"), queue.getJobCounts()]);
    // A worker's stalled check (BullMQ's, on a timer) may come at any time; nothing else writes it.
    const names = all.filter((name) => !name.endsWith(":stalled-check"));
    const ttls = await Promise.all(names.map((name) => redis.pttl(name)));
    const keys = Object.fromEntries(names.map((name, i) => [name, { expires: ttls[i]! >= 0 }]));
    return { keys, jobs };
  }
  return {
    server,
    redis,
    prefix,
    errand,
    counters: testCounterKeys(prefix),
    queue,
    async spawn(workerId, options = {}) {
      const worker = await spawnWorker({ redisUrl: server.url, prefix, workerId, ...options });
      workers.push(worker);
      return worker;
    },
    async waitForEvent(runId, until = (event) => isTerminalEventType(event.type)) {
      const events: RunEvent[] = [];
      for await (const event of errand.events(runId, { follow: true })) {
        events.push(event);
        if (until(event)) return events;
      }
      throw new Error(`run ${runId} ended without the awaited event: ${JSON.stringify(events)}`);
    },
    footprint,
    async expectNothingWrittenSince(before) {
      const after = await footprint();
      expect(after.jobs).toEqual(before.jobs);
      expect(Object.keys(after.keys).filter((key) => !(key in before.keys))).toEqual([]);
      const gone = Object.keys(before.keys).filter((key) => !(key in after.keys));
      expect(gone.filter((key) => !before.keys[key]!.expires)).toEqual([]);
    },
    async killWorkers() {
      await killWorkers(workers.splice(0));
    },
    async stop() {
      await killWorkers(workers);
      await queue.close();
      queueConnection.disconnect();
      await errand.close();
    },
  };
}
