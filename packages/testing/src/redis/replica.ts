/**
 * `startReplicaOf(master)`: a second private Redis made a replica of
 * `master`, resolved once its link is up, so that a `WAIT 1` on the master
 * counts it. For tests of `durability: "replicated"` that need a master
 * without a replica first (every replicated write refused in time), then
 * with one.
 */
import { type RedisServer, startRedis, waitUntil } from "@errand/local-redis";
import { Redis } from "ioredis";

/** How long a replica may take to be in sync with its master. */
const REPLICA_SYNC_TIMEOUT_MS = 60_000;

/** Starts a Redis replicating `master`; throws if it is not in sync in time. `stop` it when done. */
export async function startReplicaOf(master: RedisServer): Promise<RedisServer> {
  const replica = await startRedis();
  const admin = new Redis(replica.url);
  try {
    await admin.replicaof(master.host, master.port);
    const linked = await waitUntil(
      async () =>
        /^master_link_status:up/m.test(await admin.info("replication")) ? true : undefined,
      { timeoutMs: REPLICA_SYNC_TIMEOUT_MS, intervalMs: 100 },
    );
    if (!linked)
      throw new Error(`the replica was not in sync within ${REPLICA_SYNC_TIMEOUT_MS} ms`);
    return replica;
  } catch (error) {
    await replica.stop();
    throw error;
  } finally {
    admin.disconnect();
  }
}
