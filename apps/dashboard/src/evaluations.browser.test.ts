/**
 * An evaluation on the page, in Chromium: three recorded city runs
 * evaluated against a candidate whose model records another population for
 * Tartu; the evaluation's page shows the totals and each case side by side
 * (original and candidate output, tool calls answered from the log, cost),
 * the changed case first; the list of evaluations links to it. Each
 * evaluation says where its candidate's runs ran (`runsOn`): the evaluating
 * process, or the live workers of the candidate's version.
 */
import type { Model } from "@errand/runtime";
import { type Agent, scriptedModel } from "@errand/runtime";
import { afterAll, beforeAll, expect, it } from "vitest";
import { CITY, cityItem, dashboardTestAgents, lookupThenRecord } from "./test-support/agents.js";
import { type BrowserSession, launchBrowser } from "./test-support/browser.js";
import { startWorkload, type Workload } from "./test-support/workload.js";

let w: Workload;
let browser: BrowserSession;

beforeAll(async () => {
  browser = await launchBrowser();
  w = await startWorkload("evaluations");
});
afterAll(async () => {
  await browser?.close();
  await w?.stop();
});

/** The city agent with new instructions, whose model records a population of 1 for Tartu. */
function candidate(): Agent {
  const city = dashboardTestAgents().find((agent) => agent.name === CITY)!;
  const scripted = scriptedModel();
  const model: Model = {
    ...scripted,
    async respond(request, signal) {
      const response = await scripted.respond(request, signal);
      const calls = response.calls.map((call) => {
        const args = call.args as { city?: string };
        return call.name === "structured_output" && args.city === "Tartu"
          ? { ...call, args: { ...args, population: 1 } }
          : call;
      });
      return { ...response, calls };
    },
  };
  return { ...city, instructions: "Record the population, rounded.", model };
}

it("shows an evaluation's cases side by side, the changed one first", async () => {
  const cities = ["Riga", "Tartu", "Oslo"];
  const runIds: string[] = [];
  for (const name of cities) {
    const { runId } = await w.errand.fire(cityItem(lookupThenRecord(name)));
    runIds.push(runId);
  }
  for (const runId of runIds) await w.waitForResult(runId);
  const evaluation = await w.errand.evaluate({ runs: runIds, agent: candidate() });
  expect(evaluation.totals).toMatchObject({ cases: 3, changed: 1, failed: 0 });
  const tartu = runIds[1]!;
  const { page } = browser;

  await page.goto(`${w.dashboard.url}/#/evaluations`);
  const row = page.locator(
    `[data-testid="evaluation-row"][data-evaluation-id="${evaluation.evaluationId}"]`,
  );
  await row.waitFor();
  await row.getByRole("link").click();

  const cases = page.locator('[data-testid="evaluation-case"]');
  await cases.first().waitFor();
  expect(await cases.count()).toBe(3);
  expect(await cases.evaluateAll((els) => els.map((el) => el.getAttribute("data-run-id")))).toEqual(
    [tartu, runIds[0], runIds[2]],
  );
  const first = cases.first();
  expect(await first.getAttribute("data-changed")).toBe("true");
  expect(await first.locator('[data-testid="case-outcome"]').textContent()).toBe("changed");
  expect(await first.locator('[data-testid="case-diff"]').textContent()).toBe(
    "$.population: 5000 → 1",
  );
  expect(await first.locator('[data-testid="case-original"] pre').textContent()).toContain(
    '"population": 5000',
  );
  expect(await first.locator('[data-testid="case-candidate"] pre').textContent()).toContain(
    '"population": 1',
  );
  const calls = await first.locator('[data-testid="case-candidate-calls"] li').textContent();
  expect(calls).toContain("lookup_population");
  expect(calls).toContain("log");
  expect(await first.locator('[data-testid="case-original"] dl.facts').textContent()).toContain(
    "cost",
  );
  expect(await cases.nth(1).getAttribute("data-changed")).toBe("false");
  const totals = await page.locator('[data-testid="evaluation-totals"]').textContent();
  expect(totals).toContain("cases3 of 3");
  expect(totals).toContain("changed1");
  expect(totals).toContain("runs onthe evaluating process");
  await browser.screenshot("evaluation-01-side-by-side");
  expect(browser.errors).toEqual([]);
});

it("says where each evaluation's candidate ran: the evaluating process, or live workers", async () => {
  const { runId } = await w.errand.fire(cityItem(lookupThenRecord("Vilnius")));
  await w.waitForResult(runId);
  const inProcess = await w.errand.evaluate({ runs: [runId], agent: candidate() });
  const onFleet = await w.errand.evaluate({ runs: [runId], agent: { agent: CITY } });
  expect(onFleet.candidate.runsOn).toBe("fleet");
  expect(onFleet.totals).toMatchObject({ cases: 1, failed: 0 });
  const { page } = browser;

  await page.goto(`${w.dashboard.url}/#/evaluations`);
  const runsOn = (evaluationId: string) =>
    page
      .locator(
        `[data-testid="evaluation-row"][data-evaluation-id="${evaluationId}"] [data-testid="evaluation-runs-on"]`,
      )
      .textContent();
  await page.locator(`[data-evaluation-id="${onFleet.evaluationId}"]`).waitFor();
  expect(await runsOn(onFleet.evaluationId)).toBe("live workers");
  expect(await runsOn(inProcess.evaluationId)).toBe("the evaluating process");
  await browser.screenshot("evaluation-02-runs-on");

  await page.locator(`[data-evaluation-id="${onFleet.evaluationId}"]`).getByRole("link").click();
  const totals = page.locator('[data-testid="evaluation-totals"]');
  await totals.waitFor();
  expect(await totals.textContent()).toContain(
    `candidate${CITY}@${onFleet.candidate.version}runs onlive workers`,
  );
  expect(browser.errors).toEqual([]);
});
