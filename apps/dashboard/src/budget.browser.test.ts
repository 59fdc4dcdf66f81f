/**
 * Costs and budgets on the page, in Chromium: the runs list's cost column,
 * and a budgeted run's page with its budget, what it spent and what its
 * tree spent and has left.
 */
import { runViewUrl } from "@errand/engine";
import { afterAll, beforeAll, expect, it } from "vitest";
import { formatUsd } from "./page/format.js";
import { cityItem, lookupThenRecord } from "./test-support/agents.js";
import { type BrowserSession, launchBrowser } from "./test-support/browser.js";
import { startWorkload, type Workload } from "./test-support/workload.js";

let w: Workload;
let browser: BrowserSession;

beforeAll(async () => {
  browser = await launchBrowser();
  w = await startWorkload(
    "budget-page",
    {},
    {},
    {
      prices: { scripted: { inputPerMillionUsd: 3, outputPerMillionUsd: 9 } },
    },
  );
});
afterAll(async () => {
  await browser?.close();
  await w?.stop();
});

it("shows a run's cost in the runs list, and its budget and its tree's spend on its page", async () => {
  const { runId } = await w.errand.fire({
    ...cityItem(lookupThenRecord("Tartu"), { batch: "budget-ui" }),
    budget: { tokens: 400_000, steps: 6 },
  });
  await w.waitForResult(runId);
  const result = (await w.errand.result(runId))!;
  const { page } = browser;

  await page.goto(`${w.dashboard.url}/#/runs?q=budget-ui`);
  const cost = page.locator(
    `[data-testid="run-row"][data-run-id="${runId}"] [data-testid="run-cost"]`,
  );
  await cost.waitFor();
  expect(await cost.textContent()).toBe(formatUsd(result.costUsd!));

  await page.goto(runViewUrl(w.dashboard.url, runId));
  const facts = page.locator("dl.facts").first();
  await facts.getByText("tree left").waitFor();
  const text = await facts.textContent();
  const tokens = result.usage.inputTokens + result.usage.outputTokens;
  expect(text).toContain(`cost${formatUsd(result.costUsd!)}`);
  expect(text).toContain("budgettokens 400,000 · steps 6 (finish-in-flight)");
  // Each fact reads as its label followed by its value.
  const left = `tokens ${(400_000 - tokens).toLocaleString("en-US")} · steps ${6 - result.steps}`;
  expect(text).toContain(`tree left${left}`);
});
