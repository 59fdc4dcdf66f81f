/**
 * Budgets across a run tree (docs/architecture/budgets.md#budgets), on real
 * Redis with real in-process workers and the scripted model:
 * - 50 children race on their root's budget: the tree spends exactly what its
 *   logs hold, never more than the bound (the limit, plus at most one
 *   response per run), and every run stops with `budget_exceeded`; each
 *   response's cost is the price table's;
 * - a child's own budget is clamped to what its root's has left, and its
 *   exhaustion stops its subtree only — finishing in-flight steps, or
 *   cancelling the subtree — while its sibling and the root go on;
 * - a `runs` limit admits that many runs to a model request.
 */
import type { RunEvent, RunResult } from "@errand/core";
import { roundUsd } from "@errand/core/ops";
import { type Agent, defineAgent, defineTool, scriptedModel } from "@errand/runtime";
import { describe, expect } from "vitest";
import { z } from "zod";
import { parentTools } from "../parents/parent-tools.js";
import type { EngineFixture } from "../test-support/engine-fixture.js";
import { parentTest } from "../test-support/engine-test.js";
import { costOfUsage, type ModelPrice } from "./price-table.js";

const it = parentTest("budgets");

const LEAD = "budget-lead";
const WORKER = "budget-worker";
/** The price of the scripted model in these tests: large, so costs are far from rounding. */
const SCRIPTED_PRICE: ModelPrice = { inputPerMillionUsd: 1_000, outputPerMillionUsd: 2_000 };

function budgetAgents(): Agent[] {
  const work = defineTool({
    name: "work",
    description: "Does a small piece of work.",
    parameters: z.object({}),
    handler: async () => ({ done: true }),
  });
  const common = {
    instructions: "Follow your script.",
    model: scriptedModel(),
    scriptFromInput: true,
  };
  return [
    defineAgent({ ...common, name: LEAD, tools: parentTools(), maxSteps: 8 }),
    defineAgent({ ...common, name: WORKER, tools: [work], maxSteps: 100 }),
  ];
}

it.beforeAll(async ({ pfx }) => {
  const options = { agents: budgetAgents(), concurrency: 30, prices: { scripted: SCRIPTED_PRICE } };
  await pfx.startWorker(options);
  await pfx.startWorker(options);
});

/** A script of `steps` model responses, each calling `work`, each `sleepMs` long. */
const workScript = (steps: number, sleepMs = 0) =>
  Array.from({ length: steps }, () => ({ sleepMs, call: [{ tool: "work", args: {} }] }));

const workerItem = (steps: number, sleepMs = 0, budget?: Record<string, unknown>) => ({
  agent: WORKER,
  input: { script: workScript(steps, sleepMs) },
  ...(budget === undefined ? {} : { budget }),
});

/** A lead that spawns `items`, waits for them, then says it is done. */
const leadInput = (items: unknown[]) => ({
  script: [
    { call: [{ tool: "spawn_agents", args: { agents: items } }] },
    { call: [{ tool: "collect_agents", args: { wait: true } }] },
    { say: "done" },
  ],
});

async function settled(fx: EngineFixture, runId: string): Promise<RunResult> {
  const result = await fx.errand.result(runId, { waitMs: 120_000 });
  if (result === undefined) throw new Error(`run ${runId} did not settle`);
  return result;
}

/** Every run of the tree under `runId`, itself first, with its log. */
async function treeLogs(fx: EngineFixture, runId: string): Promise<Map<string, RunEvent[]>> {
  const logs = new Map<string, RunEvent[]>();
  let level = [runId];
  while (level.length > 0) {
    for (const id of level) logs.set(id, await fx.errand.store.readLog(id));
    const children = await Promise.all(
      level.map((id) => fx.redis.zrange(fx.errand.keys.children(id), 0, -1)),
    );
    level = children.flat();
  }
  return logs;
}

function responses(events: readonly RunEvent[]) {
  return events.flatMap((event) => (event.type === "model-responded" ? [event.data] : []));
}

/** The children of `runId`, the one whose `run-queued` matches `isFirst` first. */
async function childrenOf(
  fx: EngineFixture,
  runId: string,
  isFirst: (queued: RunEvent) => boolean,
): Promise<string[]> {
  const children = await fx.redis.zrange(fx.errand.keys.children(runId), 0, -1);
  const firsts = await Promise.all(
    children.map(async (child) =>
      isFirst((await fx.errand.store.readLog(child, { count: 1 }))[0]!),
    ),
  );
  return [...children.filter((_, i) => firsts[i]), ...children.filter((_, i) => !firsts[i])];
}

const hasOwnBudget = (queued: RunEvent) =>
  queued.type === "run-queued" && (queued.data.budget?.scopes.length ?? 0) > 1;

const tokensOf = (usage: { inputTokens: number; outputTokens: number }) =>
  usage.inputTokens + usage.outputTokens;

describe("budgets across a run tree", () => {
  it("50 children racing on one budget spend what their logs hold, past the limit by at most one response per run", async ({
    fx,
  }) => {
    const limit = 300_000;
    const { runId: root } = await fx.errand.fire({
      agent: LEAD,
      input: leadInput(Array.from({ length: 50 }, () => workerItem(40, 2))),
      budget: { tokens: limit },
    });

    const result = await settled(fx, root);
    const logs = await treeLogs(fx, root);
    expect(logs.size).toBe(51);
    const all = [...logs.values()].flatMap(responses);
    const logged = all.reduce((sum, response) => sum + tokensOf(response.usage), 0);
    const oneResponsePerRun = [...logs.values()].reduce(
      (sum, events) => sum + Math.max(0, ...responses(events).map((r) => tokensOf(r.usage))),
      0,
    );

    const tree = result.budget?.tree;
    expect(tree?.spent.tokens).toBe(logged); // every response debited, none twice
    expect(tree?.exhausted).toBe("tokens");
    expect(logged).toBeGreaterThanOrEqual(limit);
    expect(logged).toBeLessThan(limit + oneResponsePerRun); // the bound
    expect(tree?.remaining).toEqual({ tokens: 0 });
    expect(tree?.spent.runs).toBe(51);
    expect(result).toMatchObject({ status: "failed", error: { code: "budget_exceeded" } });
    for (const [runId, events] of logs) {
      if (runId === root) continue;
      const child = await settled(fx, runId);
      expect(child.error?.code).toBe("budget_exceeded");
      expect(responses(events).length).toBeLessThan(40);
      expect(child.budget).toMatchObject({ scopeRunId: root, limits: { tokens: limit } });
    }

    // Costs are the price table's, per response, per run and for the tree.
    for (const response of all) {
      expect(response.costUsd).toBe(costOfUsage(SCRIPTED_PRICE, response.usage));
      const { inputTokens, outputTokens } = response.usage;
      expect(response.costUsd).toBeCloseTo((inputTokens * 1_000 + outputTokens * 2_000) / 1e6, 9);
    }
    const rootCost = roundUsd(responses(logs.get(root)!).reduce((s, r) => s + (r.costUsd ?? 0), 0));
    expect(result.costUsd).toBe(rootCost);
    expect(result.budget?.run).toMatchObject({ costUsd: rootCost, steps: 2 });
    expect(tree?.spent.costUsd).toBe(roundUsd(all.reduce((s, r) => s + (r.costUsd ?? 0), 0)));
  });

  it("a child's own budget is clamped to what its root's has left, and runs out alone when in-flight steps may finish", async ({
    fx,
  }) => {
    const { runId: root } = await fx.errand.fire({
      agent: LEAD,
      input: leadInput([workerItem(10, 0, { steps: 3, tokens: 1e12 }), workerItem(4)]),
      budget: { tokens: 1_000_000, steps: 100 },
    });

    const result = await settled(fx, root);
    expect(result.status).toBe("succeeded");
    const [limited, free] = await childrenOf(fx, root, hasOwnBudget);
    const [limitedQueued] = await fx.errand.store.readLog(limited!);
    const clampedTokens =
      limitedQueued?.type === "run-queued"
        ? limitedQueued.data.budget?.scopes[1]?.limits.tokens
        : -1;
    expect(clampedTokens).toBeLessThanOrEqual(1_000_000);
    expect(clampedTokens).toBeGreaterThan(0);
    const limitedResult = await settled(fx, limited!);
    expect(limitedResult).toMatchObject({
      status: "failed",
      steps: 3,
      error: { code: "budget_exceeded" },
      budget: { scopeRunId: limited, limits: { steps: 3 }, tree: { exhausted: "steps" } },
    });
    expect(await settled(fx, free!)).toMatchObject({ status: "succeeded", steps: 5 });
    // The root's budget counted its whole tree: 3 + 5 + its own 3 steps.
    expect(result.budget?.tree).toMatchObject({ spent: { steps: 11 }, remaining: { steps: 89 } });
  });

  it("a child's cancel-tree budget cancels its own subtree when it runs out; its sibling and the root go on", async ({
    fx,
  }) => {
    const subtree = {
      agent: LEAD,
      input: leadInput([workerItem(30, 200), workerItem(30, 200)]),
      budget: { steps: 6, onExceeded: "cancel-tree" },
    };
    const { runId: root } = await fx.errand.fire({
      agent: LEAD,
      input: leadInput([subtree, workerItem(2)]),
    });

    expect(await settled(fx, root)).toMatchObject({ status: "succeeded", text: "done" });
    const [cancelledLead, sibling] = await childrenOf(
      fx,
      root,
      (queued) => queued.type === "run-queued" && queued.data.budget !== undefined,
    );
    expect(await settled(fx, sibling!)).toMatchObject({ status: "succeeded" });
    const lead = await settled(fx, cancelledLead!);
    expect(lead).toMatchObject({
      status: "cancelled",
      error: { message: expect.stringContaining("budget_exceeded") },
      budget: { tree: { exhausted: "steps" } },
    });
    const grandchildren = await fx.redis.zrange(fx.errand.keys.children(cancelledLead!), 0, -1);
    expect(grandchildren).toHaveLength(2);
    // Each was cancelled, or failed budget_exceeded if it asked for its next step before the cancel reached it.
    for (const runId of grandchildren) {
      const { status, error } = await settled(fx, runId);
      expect(status === "cancelled" || error?.code === "budget_exceeded").toBe(true);
      expect(status).not.toBe("succeeded");
    }
    // Cancelled at once: the steps in flight when it ran out were aborted, at most one a run.
    expect(lead.budget?.tree?.spent.steps).toBeLessThanOrEqual(6 + 3);
  });

  it("a runs limit admits that many runs of the tree to a model request", async ({ fx }) => {
    const { runId: root } = await fx.errand.fire({
      agent: LEAD,
      input: leadInput([workerItem(1), workerItem(1), workerItem(1), workerItem(1)]),
      budget: { runs: 3 },
    });

    const result = await settled(fx, root);
    expect(result.status).toBe("succeeded");
    const children = await fx.redis.zrange(fx.errand.keys.children(root), 0, -1);
    const outcomes = await Promise.all(
      children.map(async (runId) => (await settled(fx, runId)).status),
    );
    expect(outcomes.filter((status) => status === "succeeded")).toHaveLength(2);
    expect(outcomes.filter((status) => status === "failed")).toHaveLength(2);
    expect(result.budget?.tree).toMatchObject({ spent: { runs: 3 }, remaining: { runs: 0 } });
  });
});
