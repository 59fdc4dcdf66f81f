/**
 * Where time goes, in a real browser (Debian's Chromium through
 * playwright-core) on a real workload: a run's waterfall, what a parked run
 * waits on, and bulk cancel from the runs list. Screenshots are saved under
 * `test-artifacts/` (`time-*.png`).
 */
import { runViewUrl } from "@errand/engine";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CITY,
  cityAnswerSchema,
  cityItem,
  LEAD,
  leadScript,
  lookupThenRecord,
  slowChild,
} from "./test-support/agents.js";
import { type BrowserSession, launchBrowser } from "./test-support/browser.js";
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

  it("loaded nothing from anywhere but the dashboard, and logged no error", () => {
    const origin = new URL(w.dashboard.url).origin;
    expect(browser.requests.filter((url) => !url.startsWith(origin))).toEqual([]);
    expect(browser.errors).toEqual([]);
  });
});
