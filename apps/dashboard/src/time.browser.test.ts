/**
 * Where time goes, in a real browser (Debian's Chromium through
 * playwright-core) on a real workload: a run's waterfall, what a parked run
 * waits on, each settled run's tokens and bulk cancel in the runs list (of a
 * selection, and of every open run a filter matches), and
 * the overview's cards opening the runs they count. Screenshots are saved under
 * `test-artifacts/` (`time-*.png`).
 */
import { runViewUrl } from "@errand/engine";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CITY,
  cityAnswerSchema,
  cityItem,
  gatedThenRecord,
  LEAD,
  leadScript,
  lookupThenRecord,
  openGate,
  slowChild,
} from "./test-support/agents.js";
import { type BrowserSession, launchBrowser } from "./test-support/browser.js";
import { fireRunningRun } from "./test-support/running-run.js";
import { startWorkload, type Workload } from "./test-support/workload.js";

let w: Workload;
let browser: BrowserSession;

beforeAll(async () => {
  browser = await launchBrowser();
  w = await startWorkload("time");
});

afterAll(async () => {
  await browser?.close();
  await w?.stop();
});

/** The `data-kind` and label of each bar of the page's waterfall. */
async function barsShown(): Promise<string[]> {
  return browser.page
    .locator('[data-testid="waterfall-bar"]')
    .evaluateAll((rows) =>
      rows.map(
        (row) => `${row.getAttribute("data-kind")} ${row.querySelector(".wf-label")?.textContent}`,
      ),
    );
}

describe("where time goes, on the page", () => {
  it("draws a settled run's waterfall: the queue, each model request and its tool call", async () => {
    const { runId } = await w.errand.fire({
      agent: CITY,
      input: { script: lookupThenRecord("Lyon") },
      outputSchema: cityAnswerSchema,
    });
    await w.waitForResult(runId);
    const { page } = browser;
    await page.goto(runViewUrl(w.dashboard.url, runId));
    await page.locator('[data-testid="waterfall"]').waitFor();
    expect(await barsShown()).toEqual([
      "queued queued",
      "model model · step 1",
      "tool lookup_population",
      "model model · step 2",
    ]);
    expect(await page.locator('[data-testid="waiting-on"]').count()).toBe(0);
    const tool = page.locator('[data-testid="waterfall-bar"][data-kind="tool"] .wf-bar');
    expect(await tool.getAttribute("style")).toMatch(/left: [\d.]+%; width: [\d.]+%/);
    await browser.screenshot("time-01-waterfall-settled");
  });

  it("names the tool an in-flight step runs, and since when, while it runs", async () => {
    const { runId } = await w.errand.fire({
      agent: CITY,
      input: { script: gatedThenRecord("time-tool", "Lima") },
      outputSchema: cityAnswerSchema,
    });
    await w.waitForEvent(runId, (event) => event.type === "model-responded");
    const { page } = browser;
    await page.goto(runViewUrl(w.dashboard.url, runId));
    const waiting = page.locator('[data-testid="waiting-on"]');
    await waiting.waitFor();
    expect(await waiting.textContent()).toMatch(
      /^Waiting on tool await_gate running since \d\d:\d\d:\d\d$/,
    );
    expect((await barsShown()).at(-1)).toBe("tool await_gate");
    expect(
      await page.locator('[data-testid="waterfall-bar"]').last().getAttribute("data-outcome"),
    ).toBe("open");
    await browser.screenshot("time-01b-waterfall-tool-running");
    openGate("time-tool");
    await w.waitForResult(runId);
    await page
      .locator('[data-testid="waterfall-bar"][data-kind="tool"][data-outcome="ok"]')
      .waitFor();
    expect(await waiting.count()).toBe(0);
  });

  it("says what a parked run waits on, and draws its park as it goes", async () => {
    const { runId } = await w.errand.fire({
      agent: LEAD,
      input: { script: leadScript([cityItem(slowChild("pondering Cairo"), { city: "Cairo" })]) },
    });
    await w.waitForEvent(runId, (event) => event.type === "run-parked");
    const { page } = browser;
    await page.goto(runViewUrl(w.dashboard.url, runId));
    const waiting = page.locator('[data-testid="waiting-on"]');
    await waiting.waitFor();
    expect(await waiting.textContent()).toMatch(
      /^Waiting on parked: waiting for 1 of 1 run to settle, since \d\d:\d\d:\d\d$/,
    );
    const bars = await barsShown();
    expect(bars).toContain("tool spawn_agents");
    expect(bars.at(-1)).toBe("wait waiting for 1 of 1 run to settle");
    expect(
      await page.locator('[data-testid="waterfall-bar"]').last().getAttribute("data-outcome"),
    ).toBe("open");
    await browser.screenshot("time-02-waterfall-parked");
    await w.errand.cancel(runId, { cascade: true });
    await page.locator('[data-testid="run-status"]', { hasText: "cancelled" }).waitFor();
    await page
      .locator('[data-testid="waterfall-bar"][data-kind="wait"][data-outcome="cut"]')
      .waitFor();
    expect(await waiting.count()).toBe(0);
  });

  it("shows each settled run's tokens in the runs list", async () => {
    const { runId } = await w.errand.fire({
      agent: CITY,
      input: { script: lookupThenRecord("Oslo") },
      outputSchema: cityAnswerSchema,
      metadata: { batch: "tokens-ui" },
    });
    await w.waitForResult(runId);
    const usage = (await w.errand.result(runId))!.usage;
    const { page } = browser;
    await page.goto(`${w.dashboard.url}/#/runs?q=tokens-ui`);
    const tokens = page.locator(
      `[data-testid="run-row"][data-run-id="${runId}"] [data-testid="run-tokens"]`,
    );
    await tokens.waitFor();
    expect(await tokens.textContent()).toBe(`${usage.inputTokens} / ${usage.outputTokens}`);
  });

  it("cancels a selection of running runs from the list, and says what became of each", async () => {
    const runIds = [
      await fireRunningRun(w, { batch: "bulk-ui" }),
      await fireRunningRun(w, { batch: "bulk-ui" }),
    ];
    const { page } = browser;
    await page.goto(`${w.dashboard.url}/#/runs?q=bulk-ui`);
    for (const runId of runIds) {
      await page
        .locator(`[data-testid="run-row"][data-run-id="${runId}"][data-status="running"]`)
        .waitFor();
    }
    expect(await page.locator('[data-testid="bulk-cancel-button"]').isDisabled()).toBe(true);
    await page.check('[data-testid="select-all"]');
    expect(await page.locator('[data-testid="selection-count"]').textContent()).toBe("2 selected");
    await page.click('[data-testid="bulk-cancel-button"]');
    await page.locator('[data-testid="confirm-dialog"]').waitFor();
    await browser.screenshot("time-03-bulk-cancel-confirm");
    await page.click('[data-testid="confirm-ok"]');
    const toast = page.locator('[data-testid="toast"]');
    await toast.waitFor();
    expect(await toast.textContent()).toBe("Cancel requested for 2 runs");
    for (const runId of runIds) {
      expect((await w.errand.result(runId, { waitMs: 10_000 }))?.status).toBe("cancelled");
      await page
        .locator(`[data-testid="run-row"][data-run-id="${runId}"][data-status="cancelled"]`)
        .waitFor();
    }
    expect(await page.locator('[data-testid="select-run"]:checked').count()).toBe(0);
    await browser.screenshot("time-04-bulk-cancelled");
  });

  it("cancels every open run the list's filters match, from a filtered list only", async () => {
    const runIds = [
      await fireRunningRun(w, { batch: "filter-ui" }),
      await fireRunningRun(w, { batch: "filter-ui" }),
      await fireRunningRun(w, { batch: "filter-ui" }),
    ];
    const { page } = browser;
    const button = page.locator('[data-testid="filter-cancel-button"]');
    for (const unfiltered of ["#/runs", "#/runs?status=failed"]) {
      await page.goto(`${w.dashboard.url}/${unfiltered}`);
      await page.locator('[data-testid="runs-table"]').waitFor();
      expect(await button.isHidden(), unfiltered).toBe(true);
    }
    await page.goto(`${w.dashboard.url}/#/runs?q=filter-ui&status=running`);
    for (const runId of runIds) {
      await page
        .locator(`[data-testid="run-row"][data-run-id="${runId}"][data-status="running"]`)
        .waitFor();
    }
    await button.click();
    const dialog = page.locator('[data-testid="confirm-dialog"]');
    await dialog.waitFor();
    expect(await dialog.locator("h2").textContent()).toBe(
      'Cancel every open run matching q "filter-ui", status "running"?',
    );
    await browser.screenshot("time-05-filter-cancel-confirm");
    await page.click('[data-testid="confirm-ok"]');
    await page
      .locator('[data-testid="toast"]', { hasText: "Cancel requested for 3 runs" })
      .waitFor();
    for (const runId of runIds) {
      expect((await w.errand.result(runId, { waitMs: 10_000 }))?.status).toBe("cancelled");
    }
    // The list (running runs only) empties as they settle.
    await page.locator('[data-testid="runs-table"] td.empty').waitFor();
    await browser.screenshot("time-06-filter-cancelled");
  });

  it("opens the runs a headline card counts from the overview", async () => {
    const { page } = browser;
    for (const [card, status] of [
      ["stat-failure-rate-card", "failed"],
      ["stat-active-card", "running"],
    ] as const) {
      await page.goto(w.dashboard.url);
      await page.click(`[data-testid="${card}"]`);
      await page.locator('[data-testid="runs-table"]').waitFor();
      expect(new URL(page.url()).hash).toBe(`#/runs?status=${status}`);
      expect(await page.locator('[data-testid="status-filter"]').inputValue()).toBe(status);
    }
    await page.goto(w.dashboard.url);
    await page.click('[data-testid="stat-rate-card"]');
    await page.locator('[data-testid="run-row"]').first().waitFor();
    expect(new URL(page.url()).hash).toBe("#/runs");
  });

  it("loaded nothing from anywhere but the dashboard, and logged no error", () => {
    const origin = new URL(w.dashboard.url).origin;
    expect(browser.requests.filter((url) => !url.startsWith(origin))).toEqual([]);
    expect(browser.errors).toEqual([]);
  });
});
