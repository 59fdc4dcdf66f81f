/**
 * The cluster check: every key one script touches must share a Redis Cluster
 * slot — each run's keys with its shard's, each queue's keys together. The
 * key layout is checked by hash tag; on a cluster the server is also asked
 * which slot each key maps to, and how many masters the shards spread over.
 */
import { newRunId } from "@errand/core";
import { RUN_ID_RANDOM_BYTES } from "@errand/core/ops";
import { type EngineKeys, shardsOfQueue } from "@errand/engine";
import { queueOfAgents } from "@errand/engine/ops";
import { DEFAULT_SHARDS } from "@errand/store/ops";
import type { Redis } from "ioredis";
import { type DoctorCheck, passed, problem } from "./check.js";
import { type KeyGroup, splitGroups } from "./hash-tags.js";
import { readInfo } from "./redis-info.js";

const CHECK_NAME = "cluster hash-tag co-location";

/** BullMQ's key suffixes under a queue (enough to prove they share the queue's tag). */
const QUEUE_KEY_SUFFIXES = [
  "wait",
  "active",
  "delayed",
  "prioritized",
  "completed",
  "failed",
  "meta",
  "events",
  "id",
  "stalled",
  "marker",
];

/** The keys of a made-up run on `shard` and of that shard, which must share one slot. */
function shardGroup(keys: EngineKeys, shard: number): KeyGroup {
  const runId = newRunId({ shard, nowMs: 0, random: new Uint8Array(RUN_ID_RANDOM_BYTES) });
  return {
    name: `shard ${shard}`,
    keys: [
      keys.runLog(runId),
      keys.runHead(runId),
      keys.runBlobs(runId),
      keys.runLogRewrite(runId),
      keys.result(runId),
      keys.children(runId),
      keys.idempotency(shard, "key"),
      keys.shardEvents(shard),
      keys.deadLetters(shard),
      keys.deadlines(shard),
      keys.runIndex(shard),
      keys.runIndexByStatus(shard, "active"),
      keys.runIndexByAgent(shard, "agent"),
    ],
  };
}

/** The keys of each shard of `queue`: each shard's must share one slot. */
function queueGroups(keys: EngineKeys, queue: string): KeyGroup[] {
  return shardsOfQueue(keys, queue).map((shard) => ({
    name: `queue ${shard.name}`,
    keys: QUEUE_KEY_SUFFIXES.map((suffix) => `${shard.prefix}:${shard.name}:${suffix}`),
  }));
}

/**
 * Every group of keys that must share a slot, for the default shards and
 * `queues` (or, before any queue is registered, the queue of an agent `agent`).
 */
export function keyGroups(keys: EngineKeys, queues: readonly string[]): KeyGroup[] {
  const shards = Array.from({ length: DEFAULT_SHARDS }, (_, shard) => shardGroup(keys, shard));
  const named = queues.length > 0 ? queues : [queueOfAgents(keys.prefix, ["agent"])];
  const queueNames = [...new Set(named)].sort();
  return [...shards, ...queueNames.flatMap((queue) => queueGroups(keys, queue))];
}

/** The slots the server maps each group's keys to, by group name. */
async function slotsOnServer(
  redis: Redis,
  groups: readonly KeyGroup[],
): Promise<Map<string, Set<number>>> {
  const slots = new Map<string, Set<number>>();
  for (const group of groups) {
    const pipeline = redis.pipeline();
    for (const key of group.keys) pipeline.cluster("KEYSLOT", key);
    const replies = (await pipeline.exec()) ?? [];
    slots.set(group.name, new Set(replies.map(([, slot]) => Number(slot))));
  }
  return slots;
}

/** How many masters serve `slots`, from `CLUSTER SLOTS`. */
async function mastersServing(redis: Redis, slots: Iterable<number>): Promise<number> {
  const ranges = await redis.cluster("SLOTS");
  const masters = new Set<string>();
  for (const slot of slots) {
    const range = ranges.find(([start, end]) => slot >= start && slot <= end);
    const master = range?.[2];
    if (master) masters.add(`${master[0]}:${master[1]}`);
  }
  return masters.size;
}

/** Over how many masters each queue's shards sit, as a clause: `queue a~3: 3 shards over 3 masters`. */
async function queueSpread(
  redis: Redis,
  keys: EngineKeys,
  queues: readonly string[],
  slots: Map<string, Set<number>>,
): Promise<string> {
  if (queues.length === 0) return "no queue registered yet";
  const clauses: string[] = [];
  for (const queue of [...new Set(queues)].sort()) {
    const shards = shardsOfQueue(keys, queue);
    const shardSlots = shards.flatMap((shard) => [...(slots.get(`queue ${shard.name}`) ?? [])]);
    const masters = await mastersServing(redis, shardSlots);
    clauses.push(
      `queue ${queue}: ${shards.length} shard${shards.length === 1 ? "" : "s"} over ${masters} master${masters === 1 ? "" : "s"}`,
    );
  }
  return clauses.join(", ");
}

/** Every run's keys share its shard's slot, and each queue's keys share one slot. */
export async function checkCoLocation(
  redis: Redis,
  keys: EngineKeys,
  queues: readonly string[],
): Promise<DoctorCheck> {
  const groups = keyGroups(keys, queues);
  const fix =
    "errand's key layout must put every key of a run under its shard's hash tag {sN} and every queue key under {queue}: use a released errand and a prefix without { or }";
  const splitByTag = splitGroups(groups);
  if (splitByTag.length > 0) {
    const names = splitByTag.map((group) => group.name).join(", ");
    return problem(CHECK_NAME, `keys of ${names} do not share one hash tag`, fix);
  }
  const clusterEnabled = (await readInfo(redis, "cluster")).get("cluster_enabled") === "1";
  if (!clusterEnabled) {
    return passed(
      CHECK_NAME,
      `not a cluster; the keys of each of ${groups.length} shards and queues share one hash tag, ready for one`,
    );
  }
  const slots = await slotsOnServer(redis, groups);
  const split = [...slots].filter(([, groupSlots]) => groupSlots.size > 1).map(([name]) => name);
  if (split.length > 0) {
    return problem(
      CHECK_NAME,
      `the cluster puts the keys of ${split.join(", ")} on several slots`,
      fix,
    );
  }
  const shardSlots = groups
    .filter((group) => group.name.startsWith("shard "))
    .flatMap((group) => [...(slots.get(group.name) ?? [])]);
  const masters = await mastersServing(redis, shardSlots);
  return passed(
    CHECK_NAME,
    `cluster: the keys of each shard and queue share one slot; ${DEFAULT_SHARDS} shards over ${masters} master(s); ${await queueSpread(redis, keys, queues, slots)}`,
  );
}
