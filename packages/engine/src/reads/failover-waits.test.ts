/**
 * Callers waiting through a failover: on a real Redis Cluster of 3 masters
 * and 3 replicas, 30 clients wait on `result` and `collect` while a master
 * is SIGKILLed and its replica promoted (the waits start half a second
 * after the kill, while the cluster answers MOVED, CLUSTERDOWN and closed
 * connections for the default node timeout of 5 s: without the client's
 * patience, 7 of 30 rejected with "Too many Cluster redirections").
 * Every wait returns its run's settled result: none rejects with a raw
 * ioredis error, none gives up.
 */
import { defineAgent, scriptedModel } from "@errand/runtime";
import { noopLogger } from "@errand/runtime/ops";
import { type RedisClusterServer, startRedisCluster, uniqueKeyPrefix } from "@errand/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createErrand, type Errand } from "../client/client.js";
import { createCollector } from "../collector/create-collector.js";
import { createWorker } from "../worker/create-worker.js";

/** An agent that plays its script and touches no Redis of its own: only the engine meets the failover. */
const scripted = defineAgent({
  name: "failover-waits-scripted",
  instructions: "Follow your script.",
  model: scriptedModel(),
  scriptFromInput: true,
});

/** The clients waiting, one run each: half on `result`, half on `collect`. */
const CLIENTS = 30;

/** How long each wait may take: the failover, and the runs resumed after it. */
const WAIT_MS = 120_000;

let cluster: RedisClusterServer;
let url: string;

beforeAll(async () => {
  cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1 });
  const nodes = [...cluster.nodes, ...cluster.replicas];
  url = `redis+cluster://${nodes.map((node) => `${node.host}:${node.port}`).join(",")}`;
}, 90_000);
afterAll(async () => {
  await cluster?.stop();
});

describe("30 clients waiting while a master fails over", () => {
  it("each result and collect wait returns the settled result", async () => {
    const prefix = uniqueKeyPrefix("failover-waits");
    const options = { connection: url, prefix, logger: noopLogger };
    const worker = await createWorker({
      ...options,
      agents: [scripted],
      concurrency: CLIENTS,
      retry: { baseDelayMs: 50, maxDelayMs: 500 },
    });
    const collector = createCollector(options);
    await collector.start();
    // Fires answered once a replica has their runs: a run whose opening append only its master had
    // would be gone with it, and this test is about the waits, not about that window.
    const clients: Errand[] = Array.from({ length: CLIENTS }, () =>
      createErrand({ ...options, durability: "replicated" }),
    );
    try {
      const runIds = await Promise.all(
        clients.map(async (errand, i) => {
          const input = { script: [{ sleepMs: 2_000, say: `run ${i} done` }] };
          return (await errand.fire({ agent: scripted.name, input })).runId;
        }),
      );
      const failingOver = cluster.failOver(0);
      await new Promise((resolve) => setTimeout(resolve, 500));
      const waits = clients.map(async (errand, i) => {
        const runId = runIds[i]!;
        if (i % 2 === 0) return (await errand.result(runId, { waitMs: WAIT_MS }))?.text;
        const page = await errand.collect([runId], { waitMs: WAIT_MS });
        return page.results[0]?.status === "succeeded" ? page.results[0].text : page.results[0];
      });
      const settled = await Promise.allSettled(waits);
      await failingOver;
      expect(
        settled.map((wait) => (wait.status === "fulfilled" ? wait.value : wait.reason)),
      ).toEqual(runIds.map((_, i) => `run ${i} done`));
    } finally {
      await Promise.all(clients.map((errand) => errand.close()));
      await collector.stop();
      await worker.close();
    }
  }, 300_000);
});
