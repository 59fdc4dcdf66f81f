/**
 * A Redis Cluster master SIGKILLed (`--cluster --failovers`): the others fail
 * it after the node timeout and promote its replica; once the cluster is `ok`
 * again the killed node is started on its files and rejoins as a replica, so
 * the next failover has a replica to promote.
 */
import { ErrandError } from "@errand/core";
import type { FaultContext, Injected } from "./fault-context.js";
import { randomInt } from "./random.js";

/** SIGKILLs a random master; resolves once its replica is promoted and it rejoined as a replica. */
export async function failOverMaster(context: FaultContext): Promise<Injected> {
  const { redis } = context.cluster;
  if (redis.kind !== "cluster") {
    throw new ErrandError("invalid_spec", "a failover needs the Redis Cluster (--cluster)");
  }
  const failover = await redis.cluster.failOver(randomInt(context.random, 0, 2));
  return { target: `master :${failover.killedPort}`, promotedAfterMs: failover.promotedAfterMs };
}
