/**
 * `collect_agents` against real Redis and a real collector, called as the
 * runtime calls it: every child of the calling run in creation order, each
 * with its status, counts, pages followed by cursor alone, `wait` parking
 * exactly while some requested run has no stored result, and a clear
 * failure off an errand worker.
 */
import { newRunId } from "@errand/core";
import { isFatalToolError, isParkRequest, type ParkRequest } from "@errand/runtime";
import { afterAll, describe, expect } from "vitest";
import type { CollectResult } from "../reads/collect.js";
import { parentTest } from "../test-support/engine-test.js";
import { registerTestQueue } from "../test-support/registered-queue.js";
import { collectAgentsTool } from "./collect-agents.js";
import { spawnAgentsTool } from "./spawn-agents.js";
import type { SpawnResult } from "./spawn-children.js";
import { CHILD, LEAD } from "./test-support/parent-fixture.js";
import { callTool, type LentServices, lendParentServices } from "./test-support/tool-calls.js";

const it = parentTest("collect-agents");

let lent: LentServices;
let parent: string;
/** The children in the order they were spawned. */
let spawned: string[];

const at = () => new Date().toISOString();

it.beforeAll(async ({ pfx }) => {
  const { fx } = pfx;
  await registerTestQueue(fx.redis, fx.errand.keys, [{ name: LEAD }, { name: CHILD }], {
    queue: "nobody-takes-these",
  });
  lent = lendParentServices(fx);
  parent = (await fx.errand.fire({ agent: LEAD, input: null })).runId;
  const agents = ["a", "b", "c", "d", "e"].map((name) => ({ agent: CHILD, input: name }));
  const result = (await callTool(spawnAgentsTool, { agents }, site())) as SpawnResult;
  spawned = result.results.map((item) => item.runId!);
  // Settle four of the five children; the collector stores their results.
  const { store } = fx.errand;
  const [a, b, c, d] = spawned as [string, string, string, string];
  await store.appendEvents(a, "any", [{ type: "finished", at: at(), data: { text: "A" } }]);
  await store.appendEvents(b, "any", [
    { type: "failed", at: at(), data: { code: "model_error", message: "down", retryable: true } },
  ]);
  await store.appendEvents(c, "any", [{ type: "cancelled", at: at(), data: {} }]);
  await store.appendEvents(d, "any", [{ type: "finished", at: at(), data: { text: "D" } }]);
  for (const runId of [a, b, c, d]) await fx.errand.result(runId, { waitMs: 20_000 });
});
afterAll(async () => {
  await lent?.close();
});

function site() {
  return { runId: parent, step: 1, callId: "call_1_1", services: lent.services };
}

async function collect(args: Record<string, unknown>): Promise<CollectResult> {
  return (await callTool(collectAgentsTool, args, { ...site(), step: 2 })) as CollectResult;
}

describe("collect_agents", () => {
  it("collects every child of the calling run in creation order, each with its status", async () => {
    const page = await collect({});
    const inCreationOrder = [...spawned].sort();
    expect(page.results.map((result) => result.runId)).toEqual(inCreationOrder);
    expect(page).toMatchObject({
      total: 5,
      succeeded: 2,
      failed: 1,
      cancelled: 1,
      pending: 1,
      hasMore: false,
    });
    const statusOf = (runId: string) => page.results.find((r) => r.runId === runId)?.status;
    expect(spawned.map(statusOf)).toEqual([
      "succeeded",
      "failed",
      "cancelled",
      "succeeded",
      "pending",
    ]);
    expect(page.results.find((r) => r.runId === spawned[0])).toMatchObject({ ok: true, text: "A" });
    // Children are pending: collect them all again, waiting.
    expect(page.nextAction).toEqual({ tool: "collect_agents", args: { wait: true } });
  });

  it("pages by cursor alone, the next page's call named in nextAction", async () => {
    const seen: string[] = [];
    let args: Record<string, unknown> = { limit: 2 };
    for (let pages = 1; ; pages++) {
      const page = await collect(args);
      // Each page counts every child, beside its own results.
      expect(page).toMatchObject({ total: 5, succeeded: 2, failed: 1, cancelled: 1, pending: 1 });
      expect(page.count).toBe(page.results.length);
      seen.push(...page.results.map((result) => result.runId));
      if (!page.hasMore) {
        expect(pages).toBe(3);
        break;
      }
      if (page.results.every((result) => result.status !== "pending")) {
        expect(page.nextAction).toEqual({
          tool: "collect_agents",
          args: { cursor: page.nextCursor },
        });
      }
      args = { limit: 2, cursor: page.nextCursor };
    }
    expect(seen).toEqual([...spawned].sort());
  });

  it("with wait, parks for exactly the requested runs without a stored result, and answers once there are none", async ({
    pfx,
  }) => {
    const parked = await collect({ wait: true }).catch((error: unknown) => error);
    expect(isParkRequest(parked)).toBe(true);
    expect((parked as ParkRequest).waitFor).toEqual([spawned[4]]);

    const [settled, , , , running] = spawned as [string, string, string, string, string];
    const unknownRunId = newRunId({ shard: 0, nowMs: 1, random: new Uint8Array(10) });
    const chosen = await collect({ runIds: [settled, unknownRunId], wait: true });
    expect(chosen.results.map((result) => result.status)).toEqual(["succeeded", "not_found"]);

    await pfx.fx.errand.store.appendEvents(running, "any", [
      { type: "finished", at: at(), data: { text: "E" } },
    ]);
    await pfx.fx.errand.result(running, { waitMs: 20_000 });
    const all = await collect({ wait: true });
    expect(all).toMatchObject({ total: 5, succeeded: 3, pending: 0, hasMore: false });
    expect(all.nextAction).toBeUndefined();
  });

  it("fails the run with a clear error when its host lends no parent services", async () => {
    const error = await callTool(collectAgentsTool, { wait: true }, { runId: parent }).catch(
      (caught: unknown) => caught,
    );
    expect(isFatalToolError(error)).toBe(true);
    expect((error as Error).message).toMatch(/collect_agents needs an errand worker/);
  });
});
