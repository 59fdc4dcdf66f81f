/**
 * Failover with replicas: on a real Redis Cluster of 3 masters and 3
 * replicas, a master is SIGKILLed while runs go and its replica promoted.
 * Every run settles as designed, none with two terminal events or two
 * outputs; with `durability: "replicated"` every settling append waited for
 * a replica on its slot's master (WAIT runs there: a replica refuses it).
 */
import { foldRun, isTerminalEventType, type RunEvent, settleRun } from "@errand/core";
import { defineAgent, scriptedModel } from "@errand/runtime";
import { type RedisClusterServer, startRedisCluster, uniqueKeyPrefix } from "@errand/testing";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startErrandStack } from "../test-support/errand-stack.js";
import { captureLogs } from "../test-support/log-capture.js";

/** An agent that plays its script and touches no Redis of its own: only the engine meets the failover. */
const scripted = defineAgent({
  name: "failover-scripted",
  instructions: "Follow your script.",
  model: scriptedModel(),
  scriptFromInput: true,
});

/** Runs fired before the failover, and as many while it goes on. */
const RUNS_EACH_SIDE = 12;

let cluster: RedisClusterServer;
let url: string;

beforeAll(async () => {
  cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1, nodeTimeoutMs: 2_000 });
  const nodes = [...cluster.nodes, ...cluster.replicas];
  url = `redis+cluster://${nodes.map((node) => `${node.host}:${node.port}`).join(",")}`;
}, 90_000);
afterAll(async () => {
  await cluster?.stop();
});

/** How many WAITs every node answered so far (a restarted node counts from 0). */
async function waitCalls(): Promise<number> {
  let calls = 0;
  for (const node of [...cluster.nodes, ...cluster.replicas]) {
    const redis = new Redis(node.port, node.host, { lazyConnect: true });
    try {
      const info = await redis.info("commandstats");
      calls += Number(/^cmdstat_wait:calls=(\d+)/m.exec(info)?.[1] ?? 0);
    } finally {
      redis.disconnect();
    }
  }
  return calls;
}

/**
 * Until every master's replica has every write its master took so far (the
 * offset the replica last acknowledged reaches the master's). A run's
 * opening append is acknowledged once its master has it, replicated or not
 * (only settling and output appends wait for a replica), so a run fired
 * just before its master dies may be gone: the runs fired before the
 * failover are made to reach the replicas first.
 */
async function replicasCaughtUp(): Promise<void> {
  for (const node of cluster.nodes) {
    const master = new Redis(node.port, node.host, { lazyConnect: true });
    try {
      for (let tries = 0; ; tries++) {
        const info = await master.info("replication");
        const masterOffset = Number(/^master_repl_offset:(\d+)/m.exec(info)?.[1]);
        const replicaOffset = Number(/^slave0:.*offset=(\d+)/m.exec(info)?.[1] ?? -1);
        if (replicaOffset >= masterOffset) break;
        // A replica acknowledges its offset about once a second.
        if (tries >= 600) throw new Error(`the replica of ${node.port} never caught up`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      master.disconnect();
    }
  }
}

describe("a master SIGKILLed under load, its replica promoted", () => {
  it('settles every run once, durability "replicated" waiting on the slot\'s master', async () => {
    const prefix = uniqueKeyPrefix("failover");
    const logs = captureLogs();
    const stack = await startErrandStack({
      connection: url,
      prefix,
      durability: "replicated",
      logger: logs.logger,
      worker: { agents: [scripted], concurrency: 8, retry: { baseDelayMs: 50, maxDelayMs: 500 } },
    });
    const { errand } = stack;
    try {
      const fire = (i: number) =>
        errand.fire({
          agent: scripted.name,
          input: { script: [{ sleepMs: 300, say: `run ${i} done` }] },
        });
      const before = await Promise.all(Array.from({ length: RUNS_EACH_SIDE }, (_, i) => fire(i)));
      await replicasCaughtUp();
      const failingOver = cluster.failOver(0);
      const during: string[] = [];
      for (let i = 0; i < RUNS_EACH_SIDE; i++) {
        during.push((await fire(RUNS_EACH_SIDE + i)).runId);
      }
      const failover = await failingOver;
      expect(failover.promotedPort).not.toBe(failover.killedPort);

      const runIds = [...before.map((run) => run.runId), ...during];
      for (const runId of runIds) {
        const result = await errand.result(runId, { waitMs: 120_000 });
        expect(result?.status, `${runId}: ${JSON.stringify(result?.error)}`).toBe("succeeded");
        const events: RunEvent[] = [];
        for await (const event of errand.events(runId)) events.push(event);
        expect(events.filter((event) => isTerminalEventType(event.type))).toHaveLength(1);
        expect(events.filter((event) => event.type === "output-recorded").length).toBeLessThan(2);
        expect(settleRun(foldRun(events))?.status).toBe("succeeded");
      }
      expect(await waitCalls()).toBeGreaterThan(0);
    } finally {
      await stack.stop();
    }
  }, 300_000);
});
