/**
 * Bulk re-run on the page, in Chromium: a selection of settled runs re-run
 * from the runs list — confirmed with its count, one refused because no
 * worker of the version it ran lives — with what became of each run shown
 * and linked; every run a filtered list matches — more than one call
 * re-runs — re-run on the newest version, each once;
 * and the buttons disabled on a read-only dashboard.
 */
import { RERUN_OF_KEY } from "@errand/engine";
import { afterAll, beforeAll, expect, it } from "vitest";
import { CITY, cityItem, lookupThenRecord } from "./test-support/agents.js";
import { type BrowserSession, launchBrowser } from "./test-support/browser.js";
import { startCityWorkerOfVersion, startWorkload, type Workload } from "./test-support/workload.js";

let w: Workload;
let browser: BrowserSession;

beforeAll(async () => {
  browser = await launchBrowser();
  w = await startWorkload("rerun-ui");
});
afterAll(async () => {
  await browser?.close();
  await w?.stop();
});

/** Fires a city run labelled `batch` (on `agentVersion` when given) and waits for its result. */
async function settledCityRun(batch: string, agentVersion?: string): Promise<string> {
  const { runId } = await w.errand.fire({
    ...cityItem(lookupThenRecord("Vilnius"), { batch }),
    ...(agentVersion === undefined ? {} : { agentVersion }),
  });
  await w.waitForResult(runId);
  return runId;
}

/** A settled city run labelled `batch` that ran on a version no worker runs any more. */
async function runOnGoneVersion(batch: string): Promise<string> {
  const old = await startCityWorkerOfVersion(w, "old");
  try {
    return await settledCityRun(batch, "old");
  } finally {
    await old.close({ graceMs: 500 });
  }
}

/** A city run that records `city` at once. */
function recordOnly(city: string) {
  return [{ call: [{ tool: "structured_output", args: { city, population: 1 } }] }];
}

/** How many runs of `CITY` (the newest 500) re-run each source run, by its runId. */
async function rerunCounts(): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const run of (await w.errand.list({ agent: CITY, limit: 500 })).items) {
    const [queued] = await w.errand.store.readLog(run.runId);
    const source = queued?.type === "run-queued" ? queued.data.metadata[RERUN_OF_KEY] : undefined;
    if (source !== undefined) counts.set(source, (counts.get(source) ?? 0) + 1);
  }
  return counts;
}

/** The runs of `CITY` fired as re-runs of `sourceRunId`. */
async function rerunsOf(sourceRunId: string): Promise<string[]> {
  const found: string[] = [];
  for (const run of (await w.errand.list({ agent: CITY, limit: 100 })).items) {
    const [queued] = await w.errand.store.readLog(run.runId);
    if (queued?.type === "run-queued" && queued.data.metadata[RERUN_OF_KEY] === sourceRunId) {
      found.push(run.runId);
    }
  }
  return found;
}

it("re-runs a selection and says what became of each run, the refused one with its code", async () => {
  const gone = await runOnGoneVersion("rerun-ui");
  const sources = [await settledCityRun("rerun-ui"), await settledCityRun("rerun-ui")];
  const { page } = browser;
  await page.goto(`${w.dashboard.url}/#/runs?q=rerun-ui`);
  for (const runId of [gone, ...sources]) {
    await page.locator(`[data-testid="run-row"][data-run-id="${runId}"]`).waitFor();
  }
  const rerun = page.locator('[data-testid="bulk-rerun-button"]');
  expect(await rerun.isDisabled()).toBe(true);
  await page.check('[data-testid="select-all"]');
  expect(await page.locator('[data-testid="selection-count"]').textContent()).toBe("3 selected");
  // Settled runs cannot be cancelled: only re-run.
  expect(await page.locator('[data-testid="bulk-cancel-button"]').isDisabled()).toBe(true);
  await rerun.click();
  const dialog = page.locator('[data-testid="confirm-dialog"]');
  await dialog.waitFor();
  expect(await dialog.locator("h2").textContent()).toBe("Re-run 3 runs?");
  await browser.screenshot("rerun-01-selection-confirm");
  await page.click('[data-testid="confirm-ok"]');

  const summary = page.locator('[data-testid="rerun-summary"]');
  await summary.filter({ hasText: "Re-ran" }).waitFor();
  expect(await summary.textContent()).toBe(
    "Re-ran 2 runs · 1 refused (agent_version_unavailable ×1)",
  );
  const refused = page.locator(`[data-testid="rerun-item"][data-source-run-id="${gone}"]`);
  expect(await refused.getAttribute("data-ok")).toBe("false");
  expect(await refused.locator('[data-testid="rerun-code"]').textContent()).toBe(
    "agent_version_unavailable",
  );
  for (const sourceRunId of sources) {
    const [newRun] = await rerunsOf(sourceRunId);
    const item = page.locator(`[data-testid="rerun-item"][data-source-run-id="${sourceRunId}"]`);
    expect(await item.locator('[data-testid="rerun-new-run"]').textContent()).toBe(newRun);
  }
  expect(await rerunsOf(gone)).toEqual([]);
  expect(await page.locator('[data-testid="select-run"]:checked').count()).toBe(0);
  await browser.screenshot("rerun-02-selection-results");

  const [firstNew] = await rerunsOf(sources[0]!);
  await page
    .locator(
      `[data-testid="rerun-item"][data-source-run-id="${sources[0]}"] [data-testid="rerun-new-run"]`,
    )
    .click();
  expect(await page.locator('[data-testid="run-id"]').textContent()).toBe(firstNew);
  expect((await w.errand.result(firstNew!, { waitMs: 20_000 }))?.status).toBe("succeeded");
});

it("re-runs every run a filtered list matches, page after page, on the newest version when ticked", async () => {
  // More than one call re-runs (100): the page follows nextCursor to the last of them.
  const gone = await runOnGoneVersion("rerun-all");
  const fired = await w.errand.fireMany(
    Array.from({ length: 100 }, (_, i) => cityItem(recordOnly(`Town${i}`), { batch: "rerun-all" })),
  );
  const sources = [gone, ...fired.results.map((item) => item.runId!)];
  await w.errand.collect(sources, { waitMs: 30_000 });
  const { page } = browser;
  await page.goto(`${w.dashboard.url}/#/runs?q=rerun-all&status=succeeded`);
  await page.locator('[data-testid="run-row"]').nth(49).waitFor();
  // A list of settled runs has nothing to cancel, but all of it can be re-run.
  expect(await page.locator('[data-testid="filter-cancel-button"]').isHidden()).toBe(true);
  await page.click('[data-testid="filter-rerun-button"]');
  const dialog = page.locator('[data-testid="confirm-dialog"]');
  await dialog.waitFor();
  expect(await dialog.locator("h2").textContent()).toBe(
    'Re-run every run matching q "rerun-all", status "succeeded"?',
  );
  expect(await dialog.locator("p").textContent()).toContain(
    "50 runs shown, and more further down the list.",
  );
  await page.check('[data-testid="confirm-checkbox"]');
  await browser.screenshot("rerun-03-matching-confirm");
  await page.click('[data-testid="confirm-ok"]');
  await page.locator('[data-testid="rerun-summary"]', { hasText: "Re-ran 101 runs" }).waitFor();
  expect(await page.locator('[data-testid="rerun-item"][data-ok="true"]').count()).toBe(101);
  const counts = await rerunCounts();
  expect(sources.map((runId) => counts.get(runId))).toEqual(sources.map(() => 1));
  await browser.screenshot("rerun-04-matching-results");
  expect(browser.errors).toEqual([]);
});

it("disables re-run on a read-only dashboard", async () => {
  const readOnly = await w.startDashboard({ readOnly: true });
  const { page } = browser;
  await page.goto(`${readOnly.url}/#/runs?q=rerun-ui`);
  await page.locator('[data-testid="run-row"]').first().waitFor();
  await page.check('[data-testid="select-all"]');
  for (const button of ["bulk-rerun-button", "filter-rerun-button"]) {
    const locator = page.locator(`[data-testid="${button}"]`);
    await expect.poll(() => locator.isDisabled()).toBe(true);
    expect(await locator.getAttribute("title")).toBe("This dashboard is read-only.");
  }
});
