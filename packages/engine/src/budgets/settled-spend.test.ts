/**
 * A settled run's spend on its tree's budget (docs/architecture/budgets.md#budgets),
 * on real Redis with a real in-process worker and collector: the moment a
 * run's terminal event is in its log — and so whenever its result can be
 * read — the tree's budget holds every step of it, the last one too, which
 * is logged in the same append as the terminal event. Many one-step runs,
 * each read at that moment, each read again through `result`.
 */
import { isTerminalEventType } from "@errand/core";
import { defineAgent, scriptedModel } from "@errand/runtime";
import { describe, expect } from "vitest";
import type { EngineFixture } from "../test-support/engine-fixture.js";
import { parentTest } from "../test-support/engine-test.js";
import { readScopeSpend } from "./tree-budget.js";

const it = parentTest("settled-spend");

const ONE_STEP = "budget-one-step";
const RUNS = 40;

it.beforeAll(async ({ pfx }) => {
  const agent = defineAgent({
    name: ONE_STEP,
    instructions: "Follow your script.",
    model: scriptedModel(),
    scriptFromInput: true,
  });
  await pfx.startWorker({ agents: [agent], concurrency: 20 });
});

/** The steps the run's tree spent, read the moment its terminal event is in its log. */
async function treeStepsWhenSettled(fx: EngineFixture, runId: string): Promise<number> {
  for await (const event of fx.errand.events(runId, { follow: true })) {
    if (!isTerminalEventType(event.type)) continue;
    const { spent } = await readScopeSpend(fx.redis, fx.errand.keys, runId, runId);
    return spent.steps;
  }
  throw new Error(`run ${runId} ended without a terminal event`);
}

describe("a settled run's tree spend", () => {
  it("holds the run's last step once its terminal event is logged, and in its result", async ({
    fx,
  }) => {
    const fired = await fx.errand.fireMany(
      Array.from({ length: RUNS }, (_, n) => ({
        agent: ONE_STEP,
        input: { script: [{ say: `done ${n}` }] },
        budget: { tokens: 1_000_000_000 },
      })),
    );
    const runIds = fired.results.map((result) => result.runId!);
    expect(runIds).toHaveLength(RUNS);
    const read = await Promise.all(
      runIds.map(async (runId) => {
        const [atSettle, result] = await Promise.all([
          treeStepsWhenSettled(fx, runId),
          fx.errand.result(runId, { waitMs: 60_000 }),
        ]);
        return { atSettle, result };
      }),
    );
    expect(read.map(({ atSettle }) => atSettle)).toEqual(runIds.map(() => 1));
    for (const { result } of read) {
      expect(result?.status).toBe("succeeded");
      expect(result?.budget?.tree?.spent.steps).toBe(result?.steps);
    }
  });
});
