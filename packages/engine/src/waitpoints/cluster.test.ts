/**
 * Waitpoints on a 3-node Redis Cluster: runs spread over shards park on
 * `ask`, are listed from each shard's index, and are answered by token alone
 * (the token names the run, so its slot): each resumes and finishes.
 */
import { foldRun, settleRun } from "@errand/core";
import { askTool, defineAgent, scriptedModel } from "@errand/runtime";
import { uniqueKeyPrefix } from "@errand/testing";
import { describe, expect, it } from "vitest";
import { createErrand } from "../client/client.js";
import { useRedisCluster } from "../test-support/cluster-fixture.js";
import { eventsUntil } from "../test-support/events-until.js";
import { createWorker } from "../worker/create-worker.js";

const SHARDS = 8;
const RUNS = 4;

const fx = useRedisCluster();

describe("waitpoints on a 3-node Redis Cluster", () => {
  it("list and answer runs of every shard by their tokens", async () => {
    const prefix = uniqueKeyPrefix("cluster-waitpoints");
    const asker = defineAgent({
      name: "asker",
      instructions: "Ask, then say thanks.",
      model: scriptedModel(),
      tools: [askTool()],
      scriptFromInput: true,
    });
    const worker = await createWorker({
      connection: fx.client,
      prefix,
      shards: SHARDS,
      agents: [asker],
      concurrency: RUNS,
    });
    const errand = createErrand({ connection: fx.client, prefix, shards: SHARDS });
    try {
      const script = (n: number) => [
        { call: [{ tool: "ask", args: { question: `Question ${n}?` } }] },
        { say: "thanks" },
      ];
      const runIds: string[] = [];
      for (let n = 0; n < RUNS; n++) {
        runIds.push((await errand.fire({ agent: "asker", input: { script: script(n) } })).runId);
      }
      for (const runId of runIds) await eventsUntil(errand, runId, (e) => e.type === "run-parked");
      await expect.poll(async () => (await errand.waitpoints.list()).count).toBe(RUNS);
      const { items } = await errand.waitpoints.list();
      expect(new Set(items.map((item) => item.runId))).toEqual(new Set(runIds));

      for (const item of items) await errand.waitpoints.complete(item.token, item.question);
      for (const runId of runIds) {
        const state = foldRun(await eventsUntil(errand, runId));
        expect(settleRun(state)).toMatchObject({ status: "succeeded", text: "thanks" });
        expect(state.waitpoints[0]).toMatchObject({ status: "answered" });
      }
      expect((await errand.waitpoints.list()).items).toEqual([]);
    } finally {
      await errand.close();
      await worker.close({ graceMs: 1_000 });
    }
  });
});
