/**
 * A 3-node Redis Cluster for one test file, with a client on it: started
 * before the file's tests, stopped after them. Test-only: not exported.
 */
import { type RedisClusterServer, startRedisCluster } from "@errand/testing";
import { Cluster } from "ioredis";
import { afterAll, beforeAll } from "vitest";

/** The cluster and its client, set once the file's `beforeAll` ran. */
export interface ClusterFixture {
  cluster: RedisClusterServer;
  client: Cluster;
}

/** Starts a 3-master cluster before the file's tests and stops it after them. */
export function useRedisCluster(): ClusterFixture {
  const fixture = {} as ClusterFixture;
  beforeAll(async () => {
    fixture.cluster = await startRedisCluster({ masters: 3 });
    fixture.client = new Cluster(fixture.cluster.nodes);
  });
  afterAll(async () => {
    fixture.client?.disconnect();
    await fixture.cluster?.stop();
  });
  return fixture;
}
