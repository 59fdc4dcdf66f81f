/**
 * The shared follower on a real Redis server and on a real 3-node Redis
 * Cluster (where one read cannot span shards): watchers of runs on several
 * shards each take their run's events in order from their own seq to the
 * terminal event, a watcher that joins late from a lower seq gets what it
 * missed, and one that lags past its queue's bound misses nothing.
 */
import { randomBytes } from "node:crypto";
import {
  type EventDataOf,
  type EventType,
  type NewEvent,
  newRunId,
  type RunEvent,
} from "@errand/core";
import { RUN_ID_RANDOM_BYTES } from "@errand/core/ops";
import { noopLogger } from "@errand/runtime/ops";
import { startRedis, startRedisCluster, uniqueKeyPrefix } from "@errand/testing";
import { Cluster } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createErrand, type Errand } from "../client/client.js";
import {
  createRunLogFollower,
  MAX_QUEUED_EVENTS,
  type RunLogFollower,
} from "./run-log-follower.js";

const STARTUP_MS = 60_000;

function event<T extends EventType>(type: T, data: EventDataOf<T>): NewEvent {
  return { type, at: new Date().toISOString(), data } as NewEvent;
}

const responded = (step: number) =>
  event("model-responded", {
    step,
    text: `step ${step}`,
    calls: [],
    usage: { inputTokens: 1, outputTokens: 1 },
    finish: "stop",
  });

/** Starts a run on `shard`: `run-queued` and `run-started` (seq 2). */
async function startRun(errand: Errand, shard: number): Promise<string> {
  const runId = newRunId({ shard, nowMs: Date.now(), random: randomBytes(RUN_ID_RANDOM_BYTES) });
  await errand.store.appendEvents(runId, 0, [
    event("run-queued", {
      agent: "researcher",
      input: {},
      rootRunId: runId,
      depth: 0,
      limits: { maxSteps: 10 },
      metadata: {},
    }),
    event("run-started", { attempt: 1, workerId: "worker-1" }),
  ]);
  return runId;
}

/** Every event `follow` yields, until it ends. */
async function collect(follow: AsyncGenerator<RunEvent>): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const followed of follow) events.push(followed);
  return events;
}

/** The seq and type of every event `follow` yields, until it ends. */
async function taken(follow: AsyncGenerator<RunEvent>): Promise<[number, string][]> {
  return (await collect(follow)).map((followed) => [followed.seq, followed.type]);
}

const servers = {
  "a Redis server": async () => {
    const server = await startRedis();
    return { connection: server.url as string | Cluster, stop: () => server.stop() };
  },
  "a 3-node Redis Cluster": async () => {
    const cluster = await startRedisCluster({ masters: 3 });
    const client = new Cluster(cluster.nodes);
    return {
      connection: client as string | Cluster,
      stop: async () => {
        client.disconnect();
        await cluster.stop();
      },
    };
  },
};

describe.each(Object.entries(servers))("the run log follower on %s", (_, start) => {
  let stopServer: () => Promise<void>;
  let errand: Errand;
  let follower: RunLogFollower;
  const failures: unknown[] = [];

  beforeAll(async () => {
    const server = await start();
    stopServer = server.stop;
    const prefix = uniqueKeyPrefix("follower");
    errand = createErrand({ connection: server.connection, prefix, logger: noopLogger });
    follower = createRunLogFollower(
      {
        keys: errand.keys,
        connection: server.connection,
        logger: noopLogger,
        name: "test follower",
      },
      (error) => failures.push(error),
    );
  }, STARTUP_MS);

  afterAll(async () => {
    await follower?.close();
    await errand?.close();
    await stopServer?.();
  }, STARTUP_MS);

  it("hands each watcher of runs on several shards its run's events, in order, to the end", async () => {
    const runs = await Promise.all([0, 1, 2, 3, 7].map((shard) => startRun(errand, shard)));
    const signal = new AbortController().signal;
    const watching = runs.map((runId) => taken(follower.follow(runId, 2, signal)));
    const fromStart = taken(follower.follow(runs[0]!, 0, signal));
    for (const runId of runs) await errand.store.appendEvents(runId, 2, [responded(1)]);
    const late = taken(follower.follow(runs[1]!, 1, signal));
    for (const runId of runs) {
      await errand.store.appendEvents(runId, 3, [responded(2), event("finished", {})]);
    }
    const tail: [number, string][] = [
      [3, "model-responded"],
      [4, "model-responded"],
      [5, "finished"],
    ];
    for (const events of await Promise.all(watching)) expect(events).toEqual(tail);
    expect(await fromStart).toEqual([[1, "run-queued"], [2, "run-started"], ...tail]);
    expect(await late).toEqual([[2, "run-started"], ...tail]);
    expect(failures).toEqual([]);
  });

  it("pauses a watcher that lags past its bound, and it then misses nothing", async () => {
    const runId = await startRun(errand, 5);
    const follow = follower.follow(runId, 2, new AbortController().signal);
    const steps = MAX_QUEUED_EVENTS + 200;
    const first = follow.next();
    for (let step = 1; step <= steps; step += 100) {
      const batch = Array.from({ length: 100 }, (_, index) => responded(step + index));
      await errand.store.appendEvents(runId, step + 1, batch);
    }
    await errand.store.appendEvents(runId, steps + 2, [event("finished", {})]);
    const events = [(await first).value as RunEvent, ...(await collect(follow))];
    expect(events.map((followed) => followed.seq)).toEqual(
      Array.from({ length: steps + 1 }, (_, index) => index + 3),
    );
    expect(events.at(-1)?.type).toBe("finished");
  });
});
