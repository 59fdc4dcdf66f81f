import { randomBytes } from "node:crypto";
import { isErrandError, newRunId, type RunEvent } from "@errand/core";
import { RUN_ID_RANDOM_BYTES } from "@errand/core/ops";
import { type RedisClusterServer, startRedisCluster, uniqueKeyPrefix } from "@errand/testing";
import { Cluster } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isSeqConflict } from "./errors.js";
import { createEventStore, type EventStore } from "./event-store.js";
import { finished, modelResponded, queued, started } from "./test-support/events.js";

const CLUSTER_STARTUP_MS = 60_000;
const SHARDS = [0, 1, 2, 3, 5, 8, 13, 15];

let cluster: RedisClusterServer;
const clients: Cluster[] = [];
let store: EventStore;

function connect(): Cluster {
  const client = new Cluster(cluster.nodes);
  clients.push(client);
  return client;
}

beforeAll(async () => {
  cluster = await startRedisCluster({ masters: 3 });
  store = createEventStore({ redis: connect(), prefix: uniqueKeyPrefix("store-cluster") });
}, CLUSTER_STARTUP_MS);
afterAll(async () => {
  for (const client of clients) client.disconnect();
  await cluster?.stop();
}, CLUSTER_STARTUP_MS);

function runOnShard(shard: number): string {
  return newRunId({ shard, nowMs: Date.now(), random: randomBytes(RUN_ID_RANDOM_BYTES) });
}

/** The port of the master that owns `key`. */
async function ownerOf(client: Cluster, key: string): Promise<number> {
  const slot = (await client.cluster("KEYSLOT", key)) as number;
  const slots = await client.cluster("SLOTS");
  const owner = slots.find(([from, to]) => from <= slot && slot <= to);
  return owner![2]![1];
}

describe("the event store on a 3-node Redis Cluster", () => {
  it("appends, fences, reads, follows and stores blobs for runs on several shards and nodes", async () => {
    const runs = SHARDS.map((shard) => ({ shard, runId: runOnShard(shard) }));
    const client = clients[0]!;
    const owners = await Promise.all(
      runs.map(({ runId }) => ownerOf(client, store.keys.runLog(runId))),
    );
    expect(new Set(owners).size).toBeGreaterThan(1);

    for (const { shard, runId } of runs) {
      const { runLog, runHead, runBlobs, shardEvents } = store.keys;
      const keysOfRun = [runLog(runId), runHead(runId), runBlobs(runId), shardEvents(shard)];
      const slots = await Promise.all(keysOfRun.map((key) => client.cluster("KEYSLOT", key)));
      expect(new Set(slots).size).toBe(1);

      const opening = await store.appendEvents(runId, 0, [queued(), started(), modelResponded(1)]);
      const ref = await store.putBlob(runId, `blob of ${runId}`, "text/plain");
      const stale = await store
        .appendEvents(runId, 1, [modelResponded(2)])
        .catch((error: unknown) => error);
      expect(isSeqConflict(stale) && stale.currentSeq).toBe(3);
      const closing = await store.appendEvents(runId, 3, [finished("done")]);
      const settledTwice = await store
        .appendEvents(runId, "any", [finished()])
        .catch((e: unknown) => e);
      expect(isErrandError(settledTwice, "run_settled")).toBe(true);

      const log = [...opening, ...closing];
      expect(await store.readLog(runId)).toEqual(log);
      expect(await store.readHead(runId)).toMatchObject({
        seq: 4,
        status: "succeeded",
        attempt: 1,
      });
      const shardEntries = (await store.readShard(shard, { count: 1_000 })).filter(
        (entry) => entry.runId === runId,
      );
      expect(shardEntries.flatMap((entry) => entry.events)).toEqual(log);
      expect(await store.getBlob(ref)).toEqual({ value: `blob of ${runId}`, ref });
      expect(await client.ttl(runHead(runId))).toBeGreaterThan(0);
    }
  });

  it("follows a run through blocking reads on a dedicated Cluster connection", async () => {
    const runId = runOnShard(7);
    const [first] = await store.appendEvents(runId, 0, [queued()]);
    const follower = store.followLog(runId, { blockMs: 30_000 }, connect());
    const seen: RunEvent[] = [];
    const following = (async () => {
      for await (const event of follower) seen.push(event);
    })();
    const rest = await store.appendEvents(runId, 1, [started(), finished()]);
    await following;
    expect(seen).toEqual([first, ...rest]);
  });
});
