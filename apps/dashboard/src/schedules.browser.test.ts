/**
 * The schedules on the page, in Chromium: the list (cadence, overlap,
 * catch-up, state, next and last fire) reached from the header; one
 * schedule with the runs it made, each a link to its page; pausing it from
 * the page, confirmed, after which it makes no run; and the button disabled
 * on a read-only dashboard.
 */
import { SCHEDULE_METADATA_KEY } from "@errand/engine";
import { afterAll, beforeAll, expect, it } from "vitest";
import { CITY, LEAD, lookupThenRecord } from "./test-support/agents.js";
import { type BrowserSession, launchBrowser } from "./test-support/browser.js";
import { waitFor } from "./test-support/wait-for.js";
import { startWorkload, type Workload } from "./test-support/workload.js";

const EVERY_SECOND = "city-every-second";
const NIGHTLY = "nightly-lead";

let w: Workload;
let browser: BrowserSession;

beforeAll(async () => {
  browser = await launchBrowser();
  w = await startWorkload("schedules-ui");
  await w.errand.schedules.upsert({
    id: EVERY_SECOND,
    agent: CITY,
    input: { script: lookupThenRecord("Oslo") },
    everyMs: 1_000,
  });
  await w.errand.schedules.upsert({
    id: NIGHTLY,
    agent: LEAD,
    input: { script: [{ say: "Nightly." }] },
    cron: "0 3 * * *",
    timezone: "Europe/Paris",
    catchUp: "none",
  });
});
afterAll(async () => {
  await browser?.close();
  await w?.stop();
});

/** The runs schedule `id` made so far, newest first, once it has made at least `count`. */
function runsMade(id: string, count: number): Promise<string[]> {
  return waitFor(`schedule ${id} to have made ${count} runs`, async () => {
    const schedule = (await w.errand.schedules.list()).find((each) => each.id === id);
    const runIds = schedule?.lastRuns.map((run) => run.runId) ?? [];
    return runIds.length >= count ? runIds : undefined;
  });
}

it("lists the schedules with their next and last fire, and shows one with the runs it made", async () => {
  await runsMade(EVERY_SECOND, 2);
  const { page } = browser;
  await page.goto(w.dashboard.url);
  await page.click('[data-testid="nav-schedules"]');
  const rows = page.locator('[data-testid="schedule-row"]');
  await rows.first().waitFor();
  expect(
    await rows.evaluateAll((els) => els.map((el) => el.getAttribute("data-schedule-id"))),
  ).toEqual([EVERY_SECOND, NIGHTLY]);
  const every = rows.nth(0);
  expect(await every.locator("td").nth(2).textContent()).toBe("every 1.0 s");
  expect(await every.locator('[data-testid="schedule-state"]').textContent()).toBe("active");
  expect(await every.locator('[data-testid="schedule-last"]').textContent()).toMatch(
    /\((just now|.+ ago)\)$/,
  );
  expect(await every.locator('[data-testid="schedule-next"]').textContent()).toMatch(/\(in .+\)$/);
  const nightly = rows.nth(1);
  expect(await nightly.locator("td").nth(2).textContent()).toBe("0 3 * * * (Europe/Paris)");
  expect(await nightly.locator("td").nth(4).textContent()).toBe("none");
  expect(await nightly.locator('[data-testid="schedule-last"]').textContent()).toBe("—");
  await browser.screenshot("schedules-01-list");

  await every.locator('[data-testid="schedule-link"]').click();
  const runRows = page.locator('[data-testid="schedule-run"]');
  await runRows.nth(1).waitFor();
  const shown = await runRows.evaluateAll((els) => els.map((el) => el.getAttribute("data-run-id")));
  // Newest first, in the order the engine keeps them, each fired by this schedule.
  const made = await runsMade(EVERY_SECOND, 2);
  const both = shown.filter((id) => made.includes(id));
  expect(both.length).toBeGreaterThan(0);
  expect(made.filter((id) => shown.includes(id))).toEqual(both);
  for (const id of shown) {
    const [queued] = await w.errand.store.readLog(id!);
    expect(queued?.type === "run-queued" && queued.data.metadata[SCHEDULE_METADATA_KEY]).toBe(
      EVERY_SECOND,
    );
  }
  expect(await page.locator('[data-testid="schedule-facts"]').textContent()).toContain(
    "overlapskip",
  );
  await page.locator('[data-testid="schedule-run"][data-status="succeeded"]').first().waitFor();
  await browser.screenshot("schedules-02-detail");

  const runId = shown.at(-1)!;
  await page
    .locator(`[data-testid="schedule-run"][data-run-id="${runId}"] [data-testid="run-link"]`)
    .click();
  expect(await page.locator('[data-testid="run-id"]').textContent()).toBe(runId);
  expect(browser.errors).toEqual([]);
});

it("pauses a schedule from its page, after which it makes no run", async () => {
  const { page } = browser;
  await page.goto(`${w.dashboard.url}/#/schedules/${EVERY_SECOND}`);
  const button = page.locator('[data-testid="schedule-pause-button"]');
  await button.waitFor();
  expect(await button.textContent()).toBe("Pause");
  await button.click();
  const dialog = page.locator('[data-testid="confirm-dialog"]');
  await dialog.waitFor();
  expect(await dialog.locator("h2").textContent()).toBe(`Pause schedule ${EVERY_SECOND}?`);
  await browser.screenshot("schedules-03-pause-confirm");
  await page.click('[data-testid="confirm-ok"]');
  await page.locator('[data-testid="schedule-state"]', { hasText: "paused" }).waitFor();
  expect(await button.textContent()).toBe("Resume");
  expect((await w.errand.schedules.list())[0]).toMatchObject({ id: EVERY_SECOND, paused: true });
  // A tick already in hand may still fire once: count from after it.
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  const before = await runsMade(EVERY_SECOND, 1);
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  expect(await runsMade(EVERY_SECOND, 1)).toEqual(before);
  await browser.screenshot("schedules-04-paused");
});

it("disables pause on a read-only dashboard", async () => {
  const readOnly = await w.startDashboard({ readOnly: true });
  const { page } = browser;
  await page.goto(`${readOnly.url}/#/schedules/${NIGHTLY}`);
  const button = page.locator('[data-testid="schedule-pause-button"]');
  await button.waitFor();
  expect(await button.isDisabled()).toBe(true);
  expect(await button.getAttribute("title")).toBe("This dashboard is read-only.");
});
