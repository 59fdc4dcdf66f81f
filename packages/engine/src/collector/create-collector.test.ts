import { shardOfRunId } from "@errand/core/ops";
import { announcedRunIds, decodeShardEntry } from "@errand/store/ops";
import { describe, expect } from "vitest";
import { LOG_PAGE_EVENTS } from "../reads/log-pages.js";
import { redisTest } from "../test-support/engine-test.js";
import { DEFAULT_COLLECTOR_GROUP, ensureGroup } from "./consumer-group.js";
import { type CollectorOptions, createCollector } from "./create-collector.js";
import {
  expectedIndexedState,
  readIndexedState,
  waitUntilIndexed,
} from "./test-support/indexed-state.js";
import {
  type PlannedRun,
  type PlanOptions,
  planRuns,
  settles,
  settlingRunIds,
  writeRuns,
} from "./test-support/planned-runs.js";
import { recordingLogger } from "./test-support/recording-logger.js";
import { type EngineRedisFixture, TEST_SHARDS } from "./test-support/redis-fixture.js";

const it = redisTest;

function collectorOptions(
  fx: EngineRedisFixture,
  prefix: string,
  extra: Partial<CollectorOptions> = {},
): CollectorOptions {
  return {
    connection: fx.url,
    prefix,
    shards: TEST_SHARDS,
    batchSize: 7,
    blockMs: 100,
    claimIdleMs: 500,
    reaper: false,
    ...extra,
  };
}

/** The calls of XRANGE the server has answered so far: the collector's reads of run logs. */
async function logReads(fx: EngineRedisFixture): Promise<number> {
  const stats = await fx.redis.info("commandstats");
  return Number(/cmdstat_xrange:calls=(\d+)/.exec(stats)?.[1] ?? 0);
}

/**
 * Writes the runs of `plan` under `label`, collects them with a collector of
 * `extra` options until every settling run is indexed (checked against the
 * fold of each log), and says how many log reads it took and the results.
 */
async function collectCountingLogReads(
  fx: EngineRedisFixture,
  label: string,
  plan: PlanOptions,
  extra: Partial<CollectorOptions>,
): Promise<{ logsRead: number; results: unknown[] }> {
  const { prefix, keys, store } = fx.prefixed(label);
  const runs = planRuns(plan);
  await writeRuns(store, runs);
  const collector = createCollector(collectorOptions(fx, prefix, extra));
  const readsBefore = await logReads(fx);
  await collector.start();
  try {
    await waitUntilIndexed(fx.redis, keys, settlingRunIds(runs), TEST_SHARDS);
    const logsRead = (await logReads(fx)) - readsBefore;
    const state = await readIndexedState(fx.redis, keys, runs, TEST_SHARDS);
    expect(state).toEqual(await expectedIndexedState(store, runs));
    return { logsRead, results: Object.values(state.results) };
  } finally {
    await collector.stop();
  }
}

describe("createCollector", () => {
  it("writes each settled run's fold as its result, indexes every run, and announces each child once to its parent", async ({
    engineRedis: fx,
  }) => {
    const { prefix, keys, store } = fx.prefixed("collect-all");
    const runs = planRuns({ count: 60, shards: TEST_SHARDS, parents: 6, seed: "collect-all" });
    await writeRuns(store, runs);
    const collector = createCollector(collectorOptions(fx, prefix));
    await collector.start();
    try {
      const settling = settlingRunIds(runs);
      await waitUntilIndexed(fx.redis, keys, settling, TEST_SHARDS);
      const state = await readIndexedState(fx.redis, keys, runs, TEST_SHARDS);
      expect(state).toEqual(await expectedIndexedState(store, runs));
      expect(settling.length).toBeGreaterThan(0);
      expect(runs.length - settling.length).toBeGreaterThan(0);
    } finally {
      await collector.stop();
    }
  });

  it("folds each run from its entries without reading its log, and from its log alike when it could not follow the run", async ({
    engineRedis: fx,
  }) => {
    const plan = { count: 40, shards: TEST_SHARDS, parents: 4, seed: "projections" };
    const followed = await collectCountingLogReads(fx, "projections-followed", plan, {});
    // No budget: every run is forgotten as soon as it is folded, and folded from its log.
    const fromLogs = await collectCountingLogReads(fx, "projections-from-logs", plan, {
      projectionBytes: 0,
    });
    expect(followed.logsRead).toBe(0);
    expect(fromLogs.logsRead).toBe(followed.results.filter((result) => result !== null).length);
    expect(fromLogs.results).toEqual(followed.results);
  });

  it("folds a log longer than a page from its log a page at a time, to the result of the whole fold", async ({
    engineRedis: fx,
  }) => {
    // 600 steps: each run's log is 602 events and more, three pages of 256.
    const plan = { count: 6, shards: TEST_SHARDS, seed: "long-logs", steps: 600 };
    const followed = await collectCountingLogReads(fx, "long-logs-followed", plan, {});
    const fromLogs = await collectCountingLogReads(fx, "long-logs-from-logs", plan, {
      projectionBytes: 0,
    });
    const pagesOf = (run: PlannedRun) => Math.floor(run.events.length / LOG_PAGE_EVENTS) + 1;
    const settling = planRuns(plan).filter(settles);
    expect(settling.every((run) => pagesOf(run) === 3)).toBe(true);
    expect(fromLogs.logsRead).toBe(settling.reduce((sum, run) => sum + pagesOf(run), 0));
    expect(fromLogs.results).toEqual(followed.results);
  });

  it("collects entries of several events (one per append) and entries of one event each (written by a worker before that format) alike", async ({
    engineRedis: fx,
  }) => {
    const { prefix, keys, store } = fx.prefixed("collect-formats");
    const runs = planRuns({ count: 40, shards: TEST_SHARDS, parents: 4, seed: "collect-formats" });
    await Promise.all(
      runs.map(async ({ runId, events }) => {
        for (let seq = 0; seq < events.length; seq += 2) {
          await store.appendEvents(runId, seq, events.slice(seq, seq + 2));
        }
      }),
    );
    // Every other run's entries rewritten in the older format, in stream order.
    const older = new Set(runs.filter((_, index) => index % 2 === 0).map((run) => run.runId));
    const formats = { append: 0, event: 0 };
    for (let shard = 0; shard < TEST_SHARDS; shard += 1) {
      const stream = keys.shardEvents(shard);
      const entries = (await fx.redis.xrange(stream, "-", "+")) as [string, string[]][];
      await fx.redis.del(stream);
      for (const [id, fields] of entries) {
        const { runId, events = [] } = decodeShardEntry(shard, [id, fields]);
        if (!older.has(runId)) {
          formats.append += 1;
          await fx.redis.xadd(stream, "*", ...fields);
          continue;
        }
        for (const { seq, type, at, data } of events) {
          formats.event += 1;
          const perEvent = ["runId", runId, "seq", String(seq), "type", type, "at", at];
          await fx.redis.xadd(stream, "*", ...perEvent, "data", JSON.stringify(data));
        }
      }
    }
    expect(formats.append).toBeGreaterThan(0);
    expect(formats.event).toBeGreaterThan(0);

    const collector = createCollector(collectorOptions(fx, prefix));
    await collector.start();
    try {
      await waitUntilIndexed(fx.redis, keys, settlingRunIds(runs), TEST_SHARDS);
      const state = await readIndexedState(fx.redis, keys, runs, TEST_SHARDS);
      expect(state).toEqual(await expectedIndexedState(store, runs));
      expect(Object.values(state.results).some((result) => result !== null)).toBe(true);
    } finally {
      await collector.stop();
    }
  });

  it("keeps a run with a deadline in the deadlines until it settles, whether it followed the run or folded it from its log", async ({
    engineRedis: fx,
  }) => {
    const deadlinesOf = async (label: string, extra: Partial<CollectorOptions>) => {
      const { prefix, keys, store } = fx.prefixed(label);
      const deadlineAt = "2099-01-01T00:00:00.000Z";
      const runs = planRuns({
        count: 12,
        shards: TEST_SHARDS,
        parents: 2,
        seed: label,
        deadlineAt,
      });
      const deadlines = async () => {
        const members = await Promise.all(
          Array.from({ length: TEST_SHARDS }, (_, shard) =>
            fx.redis.zrange(keys.deadlines(shard), 0, -1),
          ),
        );
        return members.flat().sort();
      };
      const collector = createCollector(collectorOptions(fx, prefix, extra));
      await collector.start();
      try {
        await writeRuns(store, runs, { upTo: 1 });
        await waitUntilIndexed(fx.redis, keys, [], TEST_SHARDS);
        const queued = await deadlines();
        await writeRuns(store, runs, { from: 1 });
        await waitUntilIndexed(fx.redis, keys, settlingRunIds(runs), TEST_SHARDS);
        const withDeadline = runs.filter((run) => {
          const [first] = run.events;
          return first?.type === "run-queued" && first.data.limits.deadlineAt === deadlineAt;
        });
        expect(queued).toEqual(withDeadline.map((run) => run.runId).sort());
        const settling = new Set(settlingRunIds(runs));
        const open = withDeadline.filter((run) => !settling.has(run.runId));
        expect(await deadlines()).toEqual(open.map((run) => run.runId).sort());
        return withDeadline.length - open.length;
      } finally {
        await collector.stop();
      }
    };
    expect(await deadlinesOf("deadlines-followed", {})).toBeGreaterThan(0);
    // No budget: every run is folded from its log, without its run-queued at hand.
    expect(await deadlinesOf("deadlines-from-logs", { projectionBytes: 0 })).toBeGreaterThan(0);
  });

  it("collects a run's later events as they are appended, and settles it when its terminal event arrives", async ({
    engineRedis: fx,
  }) => {
    const { prefix, keys, store } = fx.prefixed("collect-live");
    const runs = planRuns({ count: 8, shards: TEST_SHARDS, parents: 2, seed: "collect-live" });
    const collector = createCollector(collectorOptions(fx, prefix));
    await collector.start();
    try {
      await writeRuns(store, runs, { upTo: 3 });
      await waitUntilIndexed(fx.redis, keys, [], TEST_SHARDS);
      const before = await readIndexedState(fx.redis, keys, runs, TEST_SHARDS);
      expect(Object.values(before.results).every((result) => result === null)).toBe(true);
      expect(before.index.active).toHaveLength(runs.length);

      await writeRuns(store, runs, { from: 3 });
      await waitUntilIndexed(fx.redis, keys, settlingRunIds(runs), TEST_SHARDS);
      const after = await readIndexedState(fx.redis, keys, runs, TEST_SHARDS);
      expect(after).toEqual(await expectedIndexedState(store, runs));
    } finally {
      await collector.stop();
    }
  });

  it("writes the agent's index of a run it indexed when queued only then, not again when it settles", async ({
    engineRedis: fx,
  }) => {
    const { prefix, keys, store } = fx.prefixed("collect-listed");
    const runs = planRuns({ count: 8, shards: TEST_SHARDS, seed: "collect-listed" });
    const agentIndexes = Array.from({ length: TEST_SHARDS }, (_, shard) =>
      ["researcher", "writer"].map((agent) => keys.runIndexByAgent(shard, agent)),
    ).flat();
    const agentMembers = async () =>
      (await Promise.all(agentIndexes.map((key) => fx.redis.zrange(key, 0, -1)))).flat();
    const collector = createCollector(collectorOptions(fx, prefix));
    await collector.start();
    try {
      await writeRuns(store, runs, { upTo: 1 });
      await waitUntilIndexed(fx.redis, keys, [], TEST_SHARDS);
      expect(await agentMembers()).toHaveLength(runs.length);
      // Emptied by hand: a settling call that wrote the agent's index again would fill it again.
      await fx.redis.del(...agentIndexes);

      await writeRuns(store, runs, { from: 1 });
      await waitUntilIndexed(fx.redis, keys, settlingRunIds(runs), TEST_SHARDS);
      expect(await readIndexedState(fx.redis, keys, runs, TEST_SHARDS)).toEqual(
        await expectedIndexedState(store, runs),
      );
      expect(await agentMembers()).toEqual([]);
    } finally {
      await collector.stop();
    }
  });

  it("changes nothing when every entry is delivered again: results and indexes stay as they were", async ({
    engineRedis: fx,
  }) => {
    const { prefix, keys, store } = fx.prefixed("collect-again");
    const runs = planRuns({ count: 30, shards: TEST_SHARDS, parents: 3, seed: "collect-again" });
    await writeRuns(store, runs);
    const settling = settlingRunIds(runs);
    const options = collectorOptions(fx, prefix, { trimIntervalMs: 3_600_000 });
    const first = createCollector(options);
    await first.start();
    await waitUntilIndexed(fx.redis, keys, settling, TEST_SHARDS);
    await first.stop();
    const once = await readIndexedState(fx.redis, keys, runs, TEST_SHARDS);

    // Rewind the group: every entry of every shard is delivered a second time.
    const streamLengths = await Promise.all(
      Array.from({ length: TEST_SHARDS }, async (_, shard) => {
        await fx.redis.xgroup("SETID", keys.shardEvents(shard), DEFAULT_COLLECTOR_GROUP, "0");
        return fx.redis.xlen(keys.shardEvents(shard));
      }),
    );
    // An entry an event (they are appended one by one), but for each run's quiet opening.
    expect(streamLengths.reduce((sum, length) => sum + length, 0)).toBe(
      runs.reduce((sum, run) => sum + run.events.length - 1, 0),
    );
    const announced: string[] = [];
    const subscriber = fx.connect();
    subscriber.on("message", (_channel: string, message: string) =>
      announced.push(...announcedRunIds(message)),
    );
    await subscriber.subscribe(
      ...Array.from({ length: TEST_SHARDS }, (_, shard) => keys.settledChannel(shard)),
    );
    const second = createCollector(options);
    await second.start();
    try {
      // The second delivery reached every settled run (it woke their waiters again)…
      await expect.poll(() => announced.length).toBe(settling.length);
      expect([...announced].sort()).toEqual([...settling].sort());
      await waitUntilIndexed(fx.redis, keys, settling, TEST_SHARDS);
      // …and left everything as the first one did.
      expect(await readIndexedState(fx.redis, keys, runs, TEST_SHARDS)).toEqual(once);
    } finally {
      await second.stop();
    }
  });

  it("shares the shards between collectors: each settled run is projected and announced once", async ({
    engineRedis: fx,
  }) => {
    const { prefix, keys, store } = fx.prefixed("collect-shared");
    const runs = planRuns({ count: 120, shards: TEST_SHARDS, parents: 8, seed: "collect-shared" });
    await writeRuns(store, runs);
    const settling = settlingRunIds(runs);

    const announcements = new Map<string, number>();
    const subscriber = fx.connect();
    subscriber.on("message", (_channel: string, message: string) => {
      for (const runId of announcedRunIds(message)) {
        announcements.set(runId, (announcements.get(runId) ?? 0) + 1);
      }
    });
    await subscriber.subscribe(
      ...Array.from({ length: TEST_SHARDS }, (_, shard) => keys.settledChannel(shard)),
    );

    const logger = recordingLogger();
    const collectors = ["left", "right"].map((consumer) =>
      createCollector(collectorOptions(fx, prefix, { consumer, batchSize: 3, logger })),
    );
    await Promise.all(collectors.map((collector) => collector.start()));
    try {
      await waitUntilIndexed(fx.redis, keys, settling, TEST_SHARDS);
      const state = await readIndexedState(fx.redis, keys, runs, TEST_SHARDS);
      expect(state).toEqual(await expectedIndexedState(store, runs));
      // Every settled run woke its waiters exactly once: no run was settled by both.
      await expect
        .poll(() => [...announcements.values()].reduce((sum, count) => sum + count, 0))
        .toBe(settling.length);
      expect([...announcements.keys()].sort()).toEqual([...settling].sort());
      expect(new Set(announcements.values())).toEqual(new Set([1]));
      // Both did part of the work.
      const settledBy = (consumer: string) =>
        logger.records
          .filter(
            (record) =>
              record.message === "shard batch indexed" && record.fields.consumer === consumer,
          )
          .reduce((sum, record) => sum + Number(record.fields.settled), 0);
      expect(settledBy("left")).toBeGreaterThan(0);
      expect(settledBy("right")).toBeGreaterThan(0);
      expect(settledBy("left") + settledBy("right")).toBe(settling.length);
    } finally {
      await Promise.all(collectors.map((collector) => collector.stop()));
    }
  });

  it("restarted under its old name, first applies what it had read and not acknowledged", async ({
    engineRedis: fx,
  }) => {
    const { prefix, keys, store } = fx.prefixed("collect-restart");
    const runs = planRuns({ count: 12, shards: TEST_SHARDS, parents: 2, seed: "collect-restart" });
    const streams = Array.from({ length: TEST_SHARDS }, (_, shard) => keys.shardEvents(shard));
    for (const stream of streams) await ensureGroup(fx.redis, stream, DEFAULT_COLLECTOR_GROUP);
    await writeRuns(store, runs);
    // Its previous life read every entry and died before acknowledging any.
    for (const stream of streams) {
      await fx.redis.xreadgroup(
        "GROUP",
        DEFAULT_COLLECTOR_GROUP,
        "phoenix",
        "STREAMS",
        stream,
        ">",
      );
    }
    // Claims cannot be what saves them: nothing is idle long enough.
    const collector = createCollector(
      collectorOptions(fx, prefix, { consumer: "phoenix", claimIdleMs: 3_600_000 }),
    );
    await collector.start();
    try {
      await waitUntilIndexed(fx.redis, keys, settlingRunIds(runs), TEST_SHARDS);
      const state = await readIndexedState(fx.redis, keys, runs, TEST_SHARDS);
      expect(state).toEqual(await expectedIndexedState(store, runs));
    } finally {
      await collector.stop();
    }
  });

  it("exposes each shard's lag and pending entries, and trims the streams once everything is acknowledged", async ({
    engineRedis: fx,
  }) => {
    const { prefix, keys, store } = fx.prefixed("collect-metrics");
    const runs = planRuns({ count: 16, shards: TEST_SHARDS, seed: "collect-metrics" });
    const shard = shardOfRunId(runs[0]!.runId);
    const stream = keys.shardEvents(shard);
    await ensureGroup(fx.redis, stream, DEFAULT_COLLECTOR_GROUP);
    await writeRuns(store, runs);
    const entries = await fx.redis.xlen(stream);
    // A collector that read 3 entries and died before acknowledging them.
    await fx.redis.xreadgroup(
      "GROUP",
      DEFAULT_COLLECTOR_GROUP,
      "dead",
      "COUNT",
      3,
      "STREAMS",
      stream,
      ">",
    );

    const collector = createCollector(collectorOptions(fx, prefix, { trimIntervalMs: 1 }));
    const before = await collector.metrics();
    expect(before.shards.find((metrics) => metrics.shard === shard)).toEqual({
      shard,
      lag: entries - 3,
      pending: 3,
      deadLettered: 0,
    });

    await collector.start();
    try {
      await waitUntilIndexed(fx.redis, keys, settlingRunIds(runs), TEST_SHARDS);
      const after = await collector.metrics();
      expect(after.lag).toBe(0);
      expect(after.pending).toBe(0);
      expect(after.shards).toHaveLength(TEST_SHARDS);
      // Everything acknowledged: the trim keeps at most the last delivered entry.
      await expect.poll(() => fx.redis.xlen(stream)).toBeLessThanOrEqual(1);
    } finally {
      await collector.stop();
    }
  });
});
