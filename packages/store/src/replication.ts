/**
 * Replicated durability: Redis acknowledges a write before any replica has
 * it (replication is asynchronous), so a master failing over right after can
 * lose a write it acknowledged. With `durability: "replicated"`, an append
 * that settles a run or records its output, and a fire's opening append, is
 * acknowledged only once one replica has it too: `WAIT 1 <timeout>` on the
 * connection that ran the append script (WAIT counts the replicas that
 * acknowledged every write of its own connection so far, so one WAIT covers
 * every append a batch sent to that master). On a cluster that is the
 * connection of the master owning the run's slot, which ioredis' `Cluster`
 * does not pick for a key-less command like WAIT (it sends it to any node),
 * so the slot is asked (`CLUSTER KEYSLOT`) and its master looked up in the
 * client's slot table. WAIT makes a lost write unlikely, not impossible: the
 * replica is not guaranteed to be the one promoted, nor to have synced its AOF.
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

function asError(thrown: unknown): Error {
  return thrown instanceof Error ? thrown : new Error(String(thrown));
}

/** Why the master holding `key` is not known to have a replica with its appends. */
function notReplicatedError(key: string, timeoutMs: number): ErrandError {
  return new ErrandError(
    "redis_unavailable",
    `no replica acknowledged the append to ${key} within ${timeoutMs} ms ` +
      '(durability "replicated" needs a replica of its master in sync)',
    { retryable: true, details: { key, timeoutMs } },
  );
}

/**
 * Waits until one replica of each master holding any of `keys` has every
 * write made so far on the connection to that master: one `WAIT` per
 * master, all at once. Resolves with the keys whose master had none
 * acknowledge within `timeoutMs` (or whose wait failed), each with why
 * (a retryable `redis_unavailable` for a shortfall): those writes are on
 * their master, perhaps on no replica. Empty when every one is confirmed.
 */
export async function keysNotReplicated(
  redis: RedisClient,
  keys: readonly string[],
  timeoutMs: number,
): Promise<Map<string, Error>> {
  const owners = await Promise.all(
    keys.map((key) => connectionOwning(redis, key).catch((error: unknown) => asError(error))),
  );
  const notReplicated = new Map<string, Error>();
  const byConnection = new Map<Redis, string[]>();
  keys.forEach((key, index) => {
    const owner = owners[index]!;
    if (owner instanceof Error) notReplicated.set(key, owner);
    else if (byConnection.has(owner)) byConnection.get(owner)!.push(key);
    else byConnection.set(owner, [key]);
  });
  await Promise.all(
    [...byConnection].map(async ([connection, keysOfMaster]) => {
      const replicas = await connection.wait(1, timeoutMs).catch((error: unknown) => error);
      for (const key of keysOfMaster) {
        if (typeof replicas === "number" && replicas >= 1) continue;
        const failed =
          typeof replicas === "number" ? notReplicatedError(key, timeoutMs) : asError(replicas);
        notReplicated.set(key, failed);
      }
    }),
  );
  return notReplicated;
}

/**
 * Resolves once one replica has every write made so far on the connection
 * that wrote `key`; throws a retryable `redis_unavailable` when none
 * acknowledged within `timeoutMs` (the write is on the master, perhaps not
 * on any replica), or what failed the wait.
 */
export async function waitForReplica(
  redis: RedisClient,
  key: string,
  timeoutMs: number,
): Promise<void> {
  const failed = (await keysNotReplicated(redis, [key], timeoutMs)).get(key);
  if (failed !== undefined) throw failed;
}
