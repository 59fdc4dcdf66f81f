/**
 * What doctor knows of Redis Cluster: the replies by which a cluster says
 * that a key is elsewhere or that it is moving (`MOVED`, `ASK`,
 * `CLUSTERDOWN`, `TRYAGAIN`), explained for what they are; whether the
 * cluster is whole (every master `cluster_state:ok`, every slot served);
 * whether a one-server URL was given for a cluster node; and a key of the
 * write probe that lands on a given master.
 */
import type { EngineKeys } from "@errand/engine";
import type { Redis } from "ioredis";
import { type DoctorCheck, passed, problem } from "./check.js";
import { readInfo } from "./redis-info.js";

/** How many slots a Redis Cluster has. */
const CLUSTER_SLOTS = 16_384;

/** How many hash tags the write probe tries to find one on a given master. */
const PROBE_TAG_TRIES = 256;

/** How to name a cluster, for the fixes. */
const NAME_THE_CLUSTER =
  "name the cluster, not one node: REDIS_URL=redis+cluster://host1:port1,host2:port2 (or --redis; rediss+cluster:// for TLS)";

/** The fix for a cluster that is not whole (a master down, slots unserved). */
const MAKE_WHOLE =
  "bring back the master that is down (or let its replica take over), then check that every slot is served: redis-cli --cluster check host:port";

/** A cluster reply doctor explains: its first word, what it means, what to do. */
interface ClusterReply {
  word: string;
  meaning: string;
  fix: string;
}

const CLUSTER_REPLIES: readonly ClusterReply[] = [
  {
    word: "MOVED",
    meaning:
      "MOVED: the key's slot is served by another node of a Redis Cluster; a client given one node's URL cannot follow it",
    fix: NAME_THE_CLUSTER,
  },
  {
    word: "ASK",
    meaning:
      "ASK: the key's slot is being migrated to another node (a resharding in progress); a cluster client follows it",
    fix: `${NAME_THE_CLUSTER}; once the resharding ends the reply goes away`,
  },
  {
    word: "CLUSTERDOWN",
    meaning:
      "CLUSTERDOWN: the cluster refuses commands because some slots have no reachable master (a master down past its node timeout, or slots never assigned)",
    fix: MAKE_WHOLE,
  },
  {
    word: "TRYAGAIN",
    meaning:
      "TRYAGAIN: the keys of a multi-key command are split by a slot migration in progress; the command succeeds once it ends",
    fix: "wait for the resharding to finish (redis-cli --cluster check host:port shows open slots), then run doctor again",
  },
];

/**
 * What a cluster reply in `message` means and what to do, when it holds one
 * (ioredis' "Too many Cluster redirections" carries the last reply); else
 * `undefined`.
 */
export function explainClusterReply(message: string): { meaning: string; fix: string } | undefined {
  return CLUSTER_REPLIES.find(({ word }) => new RegExp(`(^|\\s|: )${word}\\b`).test(message));
}

/** True when the server is a node of a Redis Cluster. */
export async function isClusterNode(redis: Redis): Promise<boolean> {
  return (await readInfo(redis, "cluster")).get("cluster_enabled") === "1";
}

/** The check that the URL names the cluster itself when the server is a cluster node. */
export function oneNodeOfCluster(url: string): DoctorCheck {
  return problem(
    "cluster url",
    `${url} is one node of a Redis Cluster: errand's keys spread over all its masters, and the other masters' keys are answered MOVED`,
    NAME_THE_CLUSTER,
  );
}

/** `host:port` of a node client. */
export function nodeAddress(node: Redis): string {
  return `${node.options.host}:${node.options.port}`;
}

/** Every master says `cluster_state:ok`, and together they serve every slot. */
export async function checkClusterState(masters: readonly Redis[]): Promise<DoctorCheck> {
  const name = "cluster state";
  const unwell: string[] = [];
  for (const master of masters) {
    const state = (await master.cluster("INFO")).match(/cluster_state:(\w+)/)?.[1] ?? "unknown";
    if (state !== "ok") {
      unwell.push(`${nodeAddress(master)} reports cluster_state:${state}`);
    }
  }
  if (unwell.length > 0) {
    return problem(name, `${unwell.join("; ")}: it answers CLUSTERDOWN`, MAKE_WHOLE);
  }
  const ranges = masters.length === 0 ? [] : await masters[0]!.cluster("SLOTS");
  const served = ranges.reduce((total, [start, end]) => total + (end - start + 1), 0);
  if (served < CLUSTER_SLOTS) {
    return problem(
      name,
      `${CLUSTER_SLOTS - served} of ${CLUSTER_SLOTS} slots have no master: keys there are answered CLUSTERDOWN`,
      MAKE_WHOLE,
    );
  }
  return passed(
    name,
    `${masters.length} masters, cluster_state:ok, all ${CLUSTER_SLOTS} slots served`,
  );
}

/**
 * A key of the write probe whose slot `master` serves (`<prefix>:doctor:write-probe:{N}`),
 * so that the probe writes to that very master.
 */
export async function probeKeyOn(master: Redis, keys: EngineKeys): Promise<string> {
  const myId = await master.cluster("MYID");
  const ranges = (await master.cluster("SLOTS")).filter(([, , owner]) => owner?.[2] === myId);
  const candidates = Array.from(
    { length: PROBE_TAG_TRIES },
    (_, tag) => `${keys.prefix}:doctor:write-probe:{${tag}}`,
  );
  const pipeline = master.pipeline();
  for (const key of candidates) pipeline.cluster("KEYSLOT", key);
  const slots = ((await pipeline.exec()) ?? []).map(([, slot]) => Number(slot));
  const index = slots.findIndex((slot) =>
    ranges.some(([start, end]) => slot >= start && slot <= end),
  );
  if (index === -1) {
    throw new Error(
      `${nodeAddress(master)} serves none of the write probe's ${PROBE_TAG_TRIES} slots`,
    );
  }
  return candidates[index]!;
}
