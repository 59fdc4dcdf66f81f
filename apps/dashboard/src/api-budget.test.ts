/**
 * Costs and budgets on the dashboard's API: the run list carries each settled
 * run's cost (its cost column), and a run's page its budget — its limits,
 * what the run spent, and what its tree spent and has left, read live.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunWithUsage } from "./reads/run-usage.js";
import type { RunDetail } from "./reads/run-view.js";
import { cityItem, lookupThenRecord } from "./test-support/agents.js";
import { requestJson } from "./test-support/http.js";
import { startWorkload, type Workload } from "./test-support/workload.js";

/** The scripted model's price in this test, per million tokens. */
const PRICE = { inputPerMillionUsd: 3, outputPerMillionUsd: 9 };

let w: Workload;
let base: string;

beforeAll(async () => {
  w = await startWorkload("budget", {}, {}, { prices: { scripted: PRICE } });
  base = w.dashboard.url;
});
afterAll(() => w?.stop());

describe("costs and budgets on the dashboard", () => {
  it("lists each settled run's cost, and shows a run's budget with its tree's spend", async () => {
    const { runId } = await w.errand.fire({
      ...cityItem(lookupThenRecord("Turku")),
      budget: { tokens: 500_000, costUsd: 2 },
    });
    await w.waitForResult(runId);
    const result = await w.errand.result(runId);
    const tokens = (result?.usage.inputTokens ?? 0) + (result?.usage.outputTokens ?? 0);
    const cost =
      ((result?.usage.inputTokens ?? 0) * 3 + (result?.usage.outputTokens ?? 0) * 9) / 1e6;
    expect(result?.costUsd).toBeCloseTo(cost, 9);

    const list = await requestJson<{ items: RunWithUsage[] }>(base, "/api/runs");
    expect(list.body.items.find((run) => run.runId === runId)?.costUsd).toBe(result?.costUsd);

    const detail = await requestJson<RunDetail>(base, `/api/runs/${runId}`);
    expect(detail.body.run.costUsd).toBe(result?.costUsd);
    expect(detail.body.run.budget).toMatchObject({
      limits: { tokens: 500_000, costUsd: 2 },
      run: { tokens, costUsd: result?.costUsd },
      tree: {
        spent: { tokens, costUsd: result?.costUsd },
        remaining: { tokens: 500_000 - tokens },
      },
    });
    expect(detail.body.run.budget?.tree?.remaining.costUsd).toBeCloseTo(2 - cost, 9);
  });
});
