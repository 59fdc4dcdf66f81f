/**
 * `spawn_agents` against real Redis, called as the runtime calls it: per-item
 * partial success, children linked to their parent (parentRunId, rootRunId,
 * depth), the same runIds when a call runs again (no run or job twice), the
 * children's priority (their own, else the parent's), the
 * depth and children limits, and a clear failure off an errand worker.
 */
import { isErrandError, type RunEvent } from "@errand/core";
import { isFatalToolError } from "@errand/runtime";
import { createEventStore } from "@errand/store";
import { afterAll, describe, expect } from "vitest";
import type { EngineFixture } from "../test-support/engine-fixture.js";
import { engineTest } from "../test-support/engine-test.js";
import { registerTestQueue } from "../test-support/registered-queue.js";
import { createWorker } from "../worker/create-worker.js";
import { parentTools } from "./parent-tools.js";
import { createSpawnAgentsTool, spawnAgentsTool } from "./spawn-agents.js";
import type { SpawnResult } from "./spawn-children.js";
import { spawnIdempotencyKeys } from "./spawn-keys.js";
import { CHILD, childOutputSchema, LEAD } from "./test-support/parent-fixture.js";
import {
  type CallSite,
  callTool,
  type LentServices,
  lendParentServices,
} from "./test-support/tool-calls.js";

const it = engineTest("spawn");

const lent: LentServices[] = [];

it.beforeAll(async ({ fx }) => {
  await registerTestQueue(fx.redis, fx.errand.keys, [{ name: LEAD }, { name: CHILD }], {
    queue: fx.queue.name,
  });
});
afterAll(async () => {
  for (const services of lent) await services.close();
});

function services(fx: EngineFixture, limits: Parameters<typeof lendParentServices>[1] = {}) {
  const opened = lendParentServices(fx, limits);
  lent.push(opened);
  return opened.services;
}

async function fireLead(fx: EngineFixture, parentRunId?: string): Promise<string> {
  const spec = { agent: LEAD, input: null, ...(parentRunId ? { parentRunId } : {}) };
  return (await fx.errand.fire(spec)).runId;
}

async function spawn(args: unknown, site: CallSite, tool = spawnAgentsTool): Promise<SpawnResult> {
  return (await callTool(tool, args, site)) as SpawnResult;
}

const childItem = (answer: string) => ({
  agent: CHILD,
  input: { script: [{ call: [{ tool: "structured_output", args: { answer } }] }] },
  outputSchema: childOutputSchema,
});

const childrenOf = async (fx: EngineFixture, runId: string) =>
  await fx.redis.zrange(fx.errand.keys.children(runId), 0, -1);

const firedIds = (result: SpawnResult) =>
  result.results.flatMap((item) => (item.ok && item.runId ? [item.runId] : []));

describe("spawn_agents", () => {
  it("fires one child per item and answers at once with their runIds; a bad item fails alone", async ({
    fx,
  }) => {
    const parent = await fireLead(fx);
    const lentServices = services(fx);
    const result = await spawn(
      {
        agents: [
          { ...childItem("a"), metadata: { topic: "first" } },
          { agent: "nobody", input: 1 },
          {
            agent: CHILD,
            input: 2,
            outputSchema: { type: "object", properties: { a: { type: "string" } } },
          },
          { agent: CHILD, input: "plain text child" },
        ],
      },
      { runId: parent, services: lentServices },
    );

    expect(result).toMatchObject({ total: 4, succeeded: 2, failed: 2 });
    expect(result.nextAction).toEqual({ tool: "collect_agents", args: { wait: true } });
    const [first, unknown, badSchema, plain] = result.results;
    expect(first).toEqual({ ok: true, runId: expect.any(String), agent: CHILD });
    expect(plain).toEqual({ ok: true, runId: expect.any(String), agent: CHILD });
    expect(unknown).toMatchObject({
      ok: false,
      agent: "nobody",
      error: { code: "unknown_agent", message: expect.stringContaining("nobody") },
      retryable: false,
    });
    expect(unknown?.runId).toBeUndefined();
    expect(badSchema).toMatchObject({ ok: false, error: { code: "unsupported_schema" } });

    const fired = firedIds(result);
    expect(await childrenOf(fx, parent)).toEqual([...fired].sort());
    for (const runId of fired) {
      expect(await fx.errand.store.readHead(runId)).toMatchObject({
        parentRunId: parent,
        rootRunId: parent,
        depth: 1,
        status: "queued",
      });
      expect(await fx.queue.getJob(runId)).toBeDefined();
    }
    const [queued] = await fx.errand.store.readLog(first!.runId!);
    expect(queued).toMatchObject({
      type: "run-queued",
      data: { metadata: { topic: "first" }, outputSchema: childOutputSchema },
    });
  });

  it("fires the same runs when the same call runs again, at once or later: no run or job twice", async ({
    fx,
  }) => {
    const parent = await fireLead(fx);
    const lentServices = services(fx);
    const args = { agents: [childItem("x"), childItem("y"), childItem("z")] };
    const site = { runId: parent, step: 1, callId: "call_1_1", services: lentServices };
    const waitingBefore = await fx.queue.getWaitingCount();

    const first = await spawn(args, site);
    const again = await spawn(args, site);
    const [racingA, racingB] = await Promise.all([
      spawn(args, { ...site, step: 2, callId: "call_2_1" }),
      spawn(args, { ...site, step: 2, callId: "call_2_1" }),
    ]);

    expect(firedIds(first)).toHaveLength(3);
    expect(firedIds(again)).toEqual(firedIds(first));
    expect(firedIds(racingB)).toEqual(firedIds(racingA));
    const everyRun = [...firedIds(first), ...firedIds(racingA)];
    expect(new Set(everyRun).size).toBe(6); // another call fires runs of its own
    expect(await childrenOf(fx, parent)).toEqual([...everyRun].sort());
    for (const runId of everyRun) {
      const log: RunEvent[] = await fx.errand.store.readLog(runId);
      expect(log.map((event) => event.type)).toEqual(["run-queued"]);
    }
    expect((await fx.queue.getWaitingCount()) - waitingBefore).toBe(6);
  });

  it("refuses children past maxDepth, writing nothing", async ({ fx }) => {
    const lentServices = services(fx, { maxDepth: 1 });
    const root = await fireLead(fx);
    const allowed = await spawn(
      { agents: [childItem("deep")] },
      { runId: root, services: lentServices },
    );
    expect(allowed.succeeded).toBe(1);

    const atLimit = await fireLead(fx, root); // depth 1 = maxDepth: may not spawn
    const refusedArgs = {
      agents: [childItem("a"), childItem("b"), { agent: "nobody", input: null }],
    };
    const refused = await spawn(refusedArgs, { runId: atLimit, services: lentServices });
    expect(refused).toMatchObject({ total: 3, succeeded: 0, failed: 3 });
    expect(refused.nextAction).toBeUndefined();
    for (const item of refused.results.slice(0, 2)) {
      expect(item).toMatchObject({
        ok: false,
        error: { code: "limit_exceeded" },
        retryable: false,
      });
      expect(item.error?.message).toMatch(/depth 2, past the limit of 1 \(maxDepth\)/);
    }
    expect(refused.results[2]?.error?.code).toBe("unknown_agent");
    expect(await childrenOf(fx, atLimit)).toEqual([]);
    // Refused items use up none of the call's idempotency keys.
    const call = { parentRunId: atLimit, step: 1, callId: "call_1_1", args: refusedArgs };
    const store = createEventStore({ redis: fx.redis, prefix: fx.prefix });
    for (const key of spawnIdempotencyKeys(call, refusedArgs.agents.length)) {
      expect(await store.readIdempotencyKey(key)).toBeUndefined();
    }
  });

  it("fires children up to maxChildrenPerParent, refusing the rest item by item, and counts a repeated call's own children once", async ({
    fx,
  }) => {
    const lentServices = services(fx, { maxChildrenPerParent: 3 });
    const parent = await fireLead(fx);
    const args = { agents: ["1", "2", "3", "4", "5"].map(childItem) };
    const site = { runId: parent, services: lentServices };

    const first = await spawn(args, site);
    const again = await spawn(args, site);
    const more = await spawn({ agents: [childItem("6")] }, { ...site, callId: "call_1_2" });

    for (const result of [first, again]) {
      expect(result.results.map((item) => item.ok)).toEqual([true, true, true, false, false]);
      expect(result.results[3]?.error).toMatchObject({ code: "limit_exceeded" });
      expect(result.results[3]?.error?.message).toMatch(/maxChildrenPerParent 3/);
    }
    expect(firedIds(again)).toEqual(firedIds(first));
    expect(more.results[0]).toMatchObject({ ok: false, error: { code: "limit_exceeded" } });
    expect(await childrenOf(fx, parent)).toEqual([...firedIds(first)].sort());

    // An agent's own tools may hold it to a tighter limit than the worker's.
    const tight = createSpawnAgentsTool({ maxChildrenPerParent: 1 });
    const other = await fireLead(fx);
    const held = await spawn(args, { runId: other, services: lentServices }, tight);
    expect(held.results.map((item) => item.ok)).toEqual([true, false, false, false, false]);
  });

  it("gives each child its own priority, else its parent's, on its run-queued and its job", async ({
    fx,
  }) => {
    const { runId: parent } = await fx.errand.fire({ agent: LEAD, input: null, priority: 7 });
    const result = await spawn(
      { agents: [childItem("inherits"), { ...childItem("own"), priority: 2 }] },
      { runId: parent, services: services(fx) },
    );
    const children = firedIds(result);
    expect(children).toHaveLength(2);
    const priorities = await Promise.all(
      children.map(async (child) => ({
        queued: (await fx.errand.store.readLog(child))[0]?.data,
        job: (await fx.queue.getJob(child))?.opts.priority,
      })),
    );
    expect(priorities).toMatchObject([
      { queued: { priority: 7 }, job: 7 },
      { queued: { priority: 2 }, job: 2 },
    ]);
    const { runId: unranked } = await fx.errand.fire({ agent: LEAD, input: null });
    const plain = await spawn(
      { agents: [childItem("none")] },
      { runId: unranked, services: services(fx) },
    );
    const [child] = firedIds(plain);
    expect((await fx.errand.store.readLog(child!))[0]?.data).not.toHaveProperty("priority");
  });

  it("fails the run with a clear error when its host lends no parent services", async ({ fx }) => {
    const parent = await fireLead(fx);
    const error = await callTool(
      spawnAgentsTool,
      { agents: [childItem("a")] },
      { runId: parent },
    ).catch((caught: unknown) => caught);
    expect(isFatalToolError(error)).toBe(true);
    expect((error as Error).message).toMatch(/spawn_agents needs an errand worker/);
    expect(await childrenOf(fx, parent)).toEqual([]);
  });

  it("refuses limits that are not whole numbers, on the worker and on the tools", async ({
    fx,
  }) => {
    const onWorker = await createWorker({
      connection: fx.server.url,
      prefix: fx.prefix,
      agents: [],
      parentLimits: { maxDepth: -1 },
    }).catch((caught: unknown) => caught);
    expect(isErrandError(onWorker, "invalid_spec")).toBe(true);
    expect((onWorker as Error).message).toMatch(/maxDepth/);
    expect(() => parentTools({ maxChildrenPerParent: 0 })).toThrow(/maxChildrenPerParent/);
  });
});
