/**
 * Queue shards on a real 3-master Redis Cluster: the jobs of one set of
 * agents land on every master, a pool of workers (each taking some shards)
 * drains them all, and cancel, parking on a waitpoint, resuming and the
 * adoption of an orphaned queue find a run's job on its shard.
 */
import { foldRun, settleRun } from "@errand/core";
import { type Agent, askTool, defineAgent, scriptedModel } from "@errand/runtime";
import { idempotencyShard } from "@errand/store/ops";
import { uniqueKeyPrefix } from "@errand/testing";
import { Queue } from "bullmq";
import type { Cluster } from "ioredis";
import { describe, expect, it } from "vitest";
import { createErrand } from "../client/client.js";
import { type EngineKeys, engineKeys } from "../engine-keys.js";
import { hashSlot } from "../redis/hash-slot.js";
import { useRedisCluster } from "../test-support/cluster-fixture.js";
import { eventsUntil } from "../test-support/events-until.js";
import { createWorker, type ErrandWorker } from "../worker/create-worker.js";
import { queueOfAgents } from "./agent-queues.js";
import { shardOfRun, shardsOfQueue } from "./queue-shards.js";

/** Run shards: a multiple of the queue shards, so that each queue shard gets as many. */
const SHARDS = 12;
const QUEUE_SHARDS = 3;
const RUNS = 24;

const fx = useRedisCluster();

const sayer = defineAgent({
  name: "sayer",
  instructions: "Say what the script says.",
  model: scriptedModel(),
  scriptFromInput: true,
});
const asker = defineAgent({
  name: "asker",
  instructions: "Ask, then say thanks.",
  model: scriptedModel(),
  tools: [askTool()],
  scriptFromInput: true,
});

const say = (text: string) => ({ script: [{ say: text }] });

/**
 * `perShard` idempotency keys for each queue shard, in shard order: a run
 * fired under a key lands on the key's run shard, so the runs of a test
 * cover every queue shard whatever the random ids.
 */
function keysOnEveryShard(label: string, perShard: number): string[] {
  const byShard: string[][] = Array.from({ length: QUEUE_SHARDS }, () => []);
  for (let n = 0; byShard.some((keys) => keys.length < perShard); n++) {
    const key = `${label}-${n}`;
    const keys = byShard[idempotencyShard(key, SHARDS) % QUEUE_SHARDS]!;
    if (keys.length < perShard) keys.push(key);
  }
  return byShard.flat();
}

/** `host:port` of the master serving each slot range, from CLUSTER SLOTS. */
async function masterOfSlot(client: Cluster): Promise<(slot: number) => string> {
  const ranges = await client.cluster("SLOTS");
  return (slot) => {
    const master = ranges.find(([start, end]) => slot >= start && slot <= end)?.[2];
    if (master === undefined) throw new Error(`no master serves slot ${slot}`);
    return `${master[0]}:${master[1]}`;
  };
}

/** How many jobs wait in each shard of `queue`, in shard order. */
async function waitingPerShard(client: Cluster, keys: EngineKeys, queue: string) {
  return Promise.all(
    shardsOfQueue(keys, queue).map(async (shard) => {
      const opened = new Queue(shard.name, { connection: client, prefix: shard.prefix });
      try {
        return await opened.getWaitingCount();
      } finally {
        await opened.close();
      }
    }),
  );
}

/** A worker of `agents` started and closed at once: its queue is registered, and no worker takes from it. */
async function registerIdleQueue(prefix: string, agents: Agent[]): Promise<string> {
  const worker = await createWorker({
    connection: fx.client,
    prefix,
    shards: SHARDS,
    agents,
    queueShards: QUEUE_SHARDS,
    concurrency: QUEUE_SHARDS,
  });
  await worker.close({ graceMs: 0 });
  return worker.queue;
}

describe("queue shards on a 3-master Redis Cluster", () => {
  it("spread one set's jobs over every master, and a pool of workers each taking some shards drains them", async () => {
    const prefix = uniqueKeyPrefix("queue-shards");
    const keys = engineKeys(prefix);
    const queue = await registerIdleQueue(prefix, [sayer]);
    expect(queue).toBe(queueOfAgents(prefix, ["sayer"], QUEUE_SHARDS));
    const errand = createErrand({ connection: fx.client, prefix, shards: SHARDS });
    const workers: ErrandWorker[] = [];
    try {
      const fired = await errand.fireMany(
        keysOnEveryShard("spread", RUNS / QUEUE_SHARDS).map((idempotencyKey, n) => ({
          agent: "sayer",
          input: say(`run ${n}`),
          idempotencyKey,
        })),
      );
      const runIds = fired.results.map((item) => item.runId!);
      expect(runIds).toHaveLength(RUNS);

      const waiting = await waitingPerShard(fx.client, keys, queue);
      expect(waiting).toEqual(Array(QUEUE_SHARDS).fill(RUNS / QUEUE_SHARDS));
      const master = await masterOfSlot(fx.client);
      const shardKeys = shardsOfQueue(keys, queue).map(
        (shard) => `${shard.prefix}:${shard.name}:wait`,
      );
      for (const key of shardKeys)
        expect(hashSlot(key)).toBe(await fx.client.cluster("KEYSLOT", key));
      expect(new Set(shardKeys.map((key) => master(hashSlot(key)))).size).toBe(3);
      for (const runId of runIds) {
        const shard = shardOfRun(keys, queue, runId);
        const opened = new Queue(shard.name, { connection: fx.client, prefix: shard.prefix });
        expect(await opened.getJobState(runId)).toBe("waiting");
        await opened.close();
      }

      const shardWorker = (takeQueueShards: number[], concurrency: number) =>
        createWorker({
          connection: fx.client,
          prefix,
          shards: SHARDS,
          agents: [sayer],
          queueShards: QUEUE_SHARDS,
          takeQueueShards,
          concurrency,
        });
      workers.push(await shardWorker([0, 1], 2), await shardWorker([2], 1));
      expect(workers.map((worker) => worker.queueShards.map(({ shard }) => shard))).toEqual([
        [0, 1],
        [2],
      ]);
      for (const [n, runId] of runIds.entries()) {
        const settled = settleRun(foldRun(await eventsUntil(errand, runId)));
        expect(settled).toMatchObject({ status: "succeeded", text: `run ${n}` });
      }
      expect(await waitingPerShard(fx.client, keys, queue)).toEqual([0, 0, 0]);
    } finally {
      await errand.close();
      await Promise.all(workers.map((worker) => worker.close({ graceMs: 1_000 })));
    }
  });

  it("cancels waiting runs on every shard, parks and resumes runs on every shard, and adopts an orphaned queue's runs from every shard", async () => {
    const prefix = uniqueKeyPrefix("queue-shards-ops");
    const keys = engineKeys(prefix);
    const orphaned = await registerIdleQueue(prefix, [sayer, asker]);
    const errand = createErrand({ connection: fx.client, prefix, shards: SHARDS });
    let adopter: ErrandWorker | undefined;
    try {
      const fire = async (agent: string, input: unknown, perShard: number) =>
        (
          await errand.fireMany(
            keysOnEveryShard(`${agent}-${JSON.stringify(input)}`, perShard).map(
              (idempotencyKey) => ({ agent, input, idempotencyKey }),
            ),
          )
        ).results.map((item) => item.runId!);
      const toCancel = await fire("sayer", say("never"), 3);
      const toAdopt = await fire("sayer", say("adopted"), 3);
      const askers = await fire(
        "asker",
        { script: [{ call: [{ tool: "ask", args: { question: "Go?" } }] }, { say: "thanks" }] },
        2,
      );
      const shardsOf = (runIds: string[]) =>
        new Set(runIds.map((runId) => shardOfRun(keys, orphaned, runId).shard));
      expect(shardsOf(toCancel).size).toBe(QUEUE_SHARDS);

      for (const runId of toCancel) {
        expect(await errand.cancel(runId)).toMatchObject({ status: "cancelled" });
        const shard = shardOfRun(keys, orphaned, runId);
        const opened = new Queue(shard.name, { connection: fx.client, prefix: shard.prefix });
        expect(await opened.getJobState(runId)).toBe("unknown");
        await opened.close();
      }

      // A worker of another set of agents, with the same shard count, adopts the orphaned queue's runs.
      adopter = await createWorker({
        connection: fx.client,
        prefix,
        shards: SHARDS,
        agents: [
          sayer,
          asker,
          defineAgent({ name: "other", instructions: "-", model: scriptedModel() }),
        ],
        queueShards: QUEUE_SHARDS,
        concurrency: 6,
      });
      expect(adopter.queue).not.toBe(orphaned);
      expect(shardsOf(toAdopt).size).toBe(QUEUE_SHARDS);
      for (const runId of toAdopt) {
        expect(settleRun(foldRun(await eventsUntil(errand, runId)))).toMatchObject({
          status: "succeeded",
          text: "adopted",
        });
      }
      expect(await waitingPerShard(fx.client, keys, orphaned)).toEqual([0, 0, 0]);

      expect(
        new Set(askers.map((runId) => shardOfRun(keys, adopter!.queue, runId).shard)).size,
      ).toBe(QUEUE_SHARDS);
      for (const runId of askers) await eventsUntil(errand, runId, (e) => e.type === "run-parked");
      await expect.poll(async () => (await errand.waitpoints.list()).count).toBe(askers.length);
      for (const item of (await errand.waitpoints.list()).items) {
        await errand.waitpoints.complete(item.token, "yes");
      }
      for (const runId of askers) {
        expect(settleRun(foldRun(await eventsUntil(errand, runId)))).toMatchObject({
          status: "succeeded",
          text: "thanks",
        });
      }
    } finally {
      await errand.close();
      await adopter?.close({ graceMs: 1_000 });
    }
  });
});
