/**
 * Where a fan-out's runs landed on the bench's cluster: which master holds
 * each run shard, how many of the bench agent's runs (the children) and of
 * the settled runs each master's shards index, and how many run logs each
 * master holds, counted by scanning its keys. Each is read from the masters
 * themselves, never worked out from the runIds the bench fired.
 */
import { engineKeys } from "@errand/engine";
import type { Redis } from "ioredis";
import { BENCH_AGENT } from "../bench-agent.js";
import type { BenchCluster } from "../bench-cluster.js";

/** Keys a `SCAN` call looks at: a million-run cluster is read in a few hundred calls. */
const SCAN_COUNT = 10_000;

/** The runs each master's shards index, by master (in the order of the cluster's nodes). */
export interface IndexedRuns {
  /** Runs of the bench agent: the fan-out's children, settled or not. */
  children: number[];
  /** Runs that succeeded: the children, and the parent once it has. */
  succeeded: number[];
}

/** The master (index of `cluster.nodes`) of each run shard 0 … `shards` − 1. */
export async function mastersOfRunShards(cluster: BenchCluster, shards: number): Promise<number[]> {
  const keys = engineKeys();
  const masters: number[] = [];
  for (let shard = 0; shard < shards; shard += 1) {
    masters.push(await cluster.masterOfKey(keys.shardEvents(shard)));
  }
  return masters;
}

/** How many run shards each master holds, given {@link mastersOfRunShards}' answer. */
export function runShardsPerMaster(
  cluster: BenchCluster,
  shardMasters: readonly number[],
): number[] {
  return cluster.nodes.map((_, master) => shardMasters.filter((held) => held === master).length);
}

/** Reads the run indexes of every shard on its own master: the children and the runs that succeeded. */
export async function indexedRuns(
  cluster: BenchCluster,
  shardMasters: readonly number[],
): Promise<IndexedRuns> {
  const keys = engineKeys();
  const counted = await Promise.all(
    cluster.admins.map(async (admin, master) => {
      const shards = shardMasters.flatMap((held, shard) => (held === master ? [shard] : []));
      const pipeline = admin.pipeline();
      for (const shard of shards) {
        pipeline.zcard(keys.runIndexByAgent(shard, BENCH_AGENT));
        pipeline.zcard(keys.runIndexByStatus(shard, "succeeded"));
      }
      const replies = ((await pipeline.exec()) ?? []).map(([error, count]) => {
        if (error) throw error;
        return count as number;
      });
      const sumOf = (offset: number) =>
        replies.filter((_, i) => i % 2 === offset).reduce((sum, count) => sum + count, 0);
      return { children: sumOf(0), succeeded: sumOf(1) };
    }),
  );
  return {
    children: counted.map(({ children }) => children),
    succeeded: counted.map(({ succeeded }) => succeeded),
  };
}

/** The run logs (`<p>:{sN}:run:<runId>:log` streams) `admin`'s master holds, counted with `SCAN`. */
async function runLogsOn(admin: Redis): Promise<number> {
  const pattern = `${engineKeys().prefix}:{s*}:run:*:log`;
  let cursor = "0";
  let count = 0;
  do {
    const [next, found] = await admin.scan(
      cursor,
      "MATCH",
      pattern,
      "COUNT",
      SCAN_COUNT,
      "TYPE",
      "stream",
    );
    cursor = next;
    count += found.length;
  } while (cursor !== "0");
  return count;
}

/** The run logs each master holds, by master. */
export function runLogsPerMaster(cluster: BenchCluster): Promise<number[]> {
  return Promise.all(cluster.admins.map(runLogsOn));
}
