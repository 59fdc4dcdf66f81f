/**
 * Replicated durability: Redis acknowledges a write before any replica has
 * it (replication is asynchronous), so a master failing over right after can
 * lose a write it acknowledged. With `durability: "replicated"`, an append
 * that settles a run or records its output is acknowledged only once one
 * replica has it too: `WAIT 1 <timeout>` on the connection that ran the
 * append script (WAIT counts the replicas that acknowledged every write of
 * its own connection). On a cluster that is the connection of the master
 * owning the run's slot, which ioredis' `Cluster` does not pick for a
 * key-less command like WAIT (it sends it to any node), so the slot is asked
 * (`CLUSTER KEYSLOT`) and its master looked up in the client's slot table.
 * WAIT makes a lost write unlikely, not impossible: the replica is not
 * guaranteed to be the one promoted, nor to have synced its AOF.
 */
import { ErrandError } from "@errand/core";
import { Cluster, type Redis } from "ioredis";
import type { RedisClient } from "./lua-command.js";

/**
 * How durable an acknowledged append is: `"acknowledged"` once the master
 * has it (the default); `"replicated"` once one replica has it too, for the
 * appends that settle a run or record its output.
 */
export type Durability = "acknowledged" | "replicated";

/** How long an append waits for a replica with `durability: "replicated"`, by default. */
export const DEFAULT_REPLICATION_TIMEOUT_MS = 1_000;

/** The connection of `redis` to the master owning `key`'s slot (the client itself for one server). */
async function connectionOwning(redis: RedisClient, key: string): Promise<Redis> {
  if (!(redis instanceof Cluster)) return redis;
  const slot = Number(await redis.cluster("KEYSLOT", key));
  const owner = redis.slots[slot]?.[0];
  const master = redis
    .nodes("master")
    .find((node) => `${node.options.host}:${node.options.port}` === owner);
  if (master === undefined) {
    throw new ErrandError(
      "redis_unavailable",
      `no connection to the master of ${key}'s slot to wait for its replica: the cluster is moving`,
      { retryable: true },
    );
  }
  return master;
}

/**
 * Resolves once one replica has every write made so far on the connection
 * that wrote `key`; throws a retryable `redis_unavailable` when none
 * acknowledged within `timeoutMs` (the write is on the master, perhaps not
 * on any replica).
 */
export async function waitForReplica(
  redis: RedisClient,
  key: string,
  timeoutMs: number,
): Promise<void> {
  const connection = await connectionOwning(redis, key);
  const replicas = await connection.wait(1, timeoutMs);
  if (replicas >= 1) return;
  throw new ErrandError(
    "redis_unavailable",
    `no replica acknowledged the append to ${key} within ${timeoutMs} ms ` +
      '(durability "replicated" needs a replica of its master in sync)',
    { retryable: true, details: { key, timeoutMs } },
  );
}
