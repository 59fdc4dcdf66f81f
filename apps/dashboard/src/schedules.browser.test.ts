/**
 * The schedules on the page, in Chromium: the list (cadence, overlap,
 * catch-up, state, next and last fire) reached from the header; one
 * schedule with the runs it made, each a link to its page; pausing it from
 * the page, confirmed, after which it makes no run; creating one from the
 * page's form, with metadata its page shows and its runs carry, which is
 * listed and fires, and removing it, confirmed; a cron expression of the
 * wrong field count, an input or metadata that is not JSON, and metadata
 * that is not an object of strings refused in the form, nothing created; and the buttons disabled on a
 * read-only dashboard.
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

/** Opens the list's form and fills in `fields`, by the control's testid. */
async function fillNewSchedule(fields: Record<string, string>): Promise<void> {
  const { page } = browser;
  await page.goto(`${w.dashboard.url}/#/schedules`);
  await page.locator('[data-testid="schedule-row"]').first().waitFor();
  await page.click('[data-testid="schedule-new-button"]');
  await page.locator('[data-testid="schedule-form"]').waitFor();
  for (const [testid, value] of Object.entries(fields)) {
    await page.fill(`[data-testid="${testid}"]`, value);
  }
}

it("creates a schedule from the page, which is listed and fires, and removes it", async () => {
  const { page } = browser;
  const id = "city-from-page";
  await fillNewSchedule({
    "schedule-id-input": id,
    "schedule-agent-input": CITY,
    "schedule-cron-input": "* * * * * *",
    "schedule-timezone-input": "Europe/Riga",
    "schedule-input": JSON.stringify({ script: lookupThenRecord("Riga") }),
    "schedule-metadata-input": '{ "team": "growth" }',
  });
  // The agent's choices are those the live workers run, from the overview stream.
  await page.locator(`#schedule-agents option[value="${LEAD}"]`).waitFor({ state: "attached" });
  expect(
    await page
      .locator("#schedule-agents option")
      .evaluateAll((els) => els.map((el) => el.getAttribute("value"))),
  ).toEqual([CITY, LEAD]);
  await page.selectOption('[data-testid="schedule-overlap"]', "allow");
  await browser.screenshot("schedules-05-create-form");
  await page.click('[data-testid="schedule-create-button"]');

  const row = page.locator(`[data-testid="schedule-row"][data-schedule-id="${id}"]`);
  await row.waitFor();
  expect(await page.locator('[data-testid="schedule-form"]').isHidden()).toBe(true);
  expect(await row.locator("td").nth(2).textContent()).toBe("* * * * * * (Europe/Riga)");
  expect(await row.locator("td").nth(3).textContent()).toBe("allow");
  // Its first fire, shown as the list is read again.
  await row
    .locator('[data-testid="schedule-last"]', { hasText: /\((just now|.+ ago)\)$/ })
    .waitFor();
  const made = await runsMade(id, 1);
  const [queued] = await w.errand.store.readLog(made[0]!);
  expect(queued?.type === "run-queued" && queued.data.metadata).toMatchObject({
    [SCHEDULE_METADATA_KEY]: id,
    team: "growth",
  });
  await browser.screenshot("schedules-06-created");

  await row.locator('[data-testid="schedule-link"]').click();
  const facts = page.locator('[data-testid="schedule-facts"]');
  await facts.locator(".json-label", { hasText: "metadata" }).waitFor();
  expect(await facts.locator(".json-block").last().locator("pre").textContent()).toBe(
    JSON.stringify({ team: "growth" }, null, 2),
  );
  await page.click('[data-testid="schedule-remove-button"]');
  const dialog = page.locator('[data-testid="confirm-dialog"]');
  await dialog.waitFor();
  expect(await dialog.locator("h2").textContent()).toBe(`Remove schedule ${id}?`);
  await page.click('[data-testid="confirm-ok"]');
  await page.waitForURL(/#\/schedules$/);
  await page.locator('[data-testid="schedule-row"]').first().waitFor();
  expect(await row.count()).toBe(0);
  expect((await w.errand.schedules.list()).map((schedule) => schedule.id)).toEqual([
    EVERY_SECOND,
    NIGHTLY,
  ]);
  expect(browser.errors).toEqual([]);
});

it("shows in the form why a cron expression of 4 fields, or an input or metadata that is not JSON, is refused", async () => {
  const { page } = browser;
  await fillNewSchedule({
    "schedule-id-input": "bad-cron",
    "schedule-agent-input": CITY,
    "schedule-cron-input": "0 3 * *",
  });
  await page.click('[data-testid="schedule-create-button"]');
  const problem = page.locator('[data-testid="schedule-form-error"]');
  await problem.waitFor();
  expect(await problem.textContent()).toBe(
    'invalid schedule: cron: "0 3 * *" is not a cron expression (it has 4 fields; write 5 (minute hour day-of-month month day-of-week), or 6 with seconds first)',
  );
  expect(await page.locator('[data-testid="schedule-form"]').isVisible()).toBe(true);
  await browser.screenshot("schedules-07-bad-cron");

  await page.fill('[data-testid="schedule-cron-input"]', "0 3 * * *");
  await page.fill('[data-testid="schedule-input"]', "{ city: Riga }");
  await page.click('[data-testid="schedule-create-button"]');
  await problem.filter({ hasText: "The input is not JSON" }).waitFor();

  await page.fill('[data-testid="schedule-input"]', "null");
  await page.fill('[data-testid="schedule-metadata-input"]', "{ team: growth }");
  await page.click('[data-testid="schedule-create-button"]');
  await problem.filter({ hasText: "The metadata is not JSON" }).waitFor();
  // JSON, but not an object of strings: the engine's own check refuses it.
  await page.fill('[data-testid="schedule-metadata-input"]', '{ "attempts": 3 }');
  await page.click('[data-testid="schedule-create-button"]');
  await problem.filter({ hasText: "invalid schedule: metadata.attempts" }).waitFor();
  expect((await w.errand.schedules.list()).map((schedule) => schedule.id)).toEqual([
    EVERY_SECOND,
    NIGHTLY,
  ]);
  await page.click('[data-testid="schedule-form-close"]');
  expect(await page.locator('[data-testid="schedule-form"]').isHidden()).toBe(true);
});

it("disables creating, pausing and removing on a read-only dashboard", async () => {
  const readOnly = await w.startDashboard({ readOnly: true });
  const { page } = browser;
  await page.goto(`${readOnly.url}/#/schedules/${NIGHTLY}`);
  for (const testid of ["schedule-pause-button", "schedule-remove-button"]) {
    const button = page.locator(`[data-testid="${testid}"]`);
    await button.waitFor();
    expect({ testid, disabled: await button.isDisabled() }).toEqual({ testid, disabled: true });
    expect(await button.getAttribute("title")).toBe("This dashboard is read-only.");
  }
  await page.goto(`${readOnly.url}/#/schedules`);
  const create = page.locator('[data-testid="schedule-new-button"]');
  await create.waitFor();
  await page.locator('[data-testid="schedule-new-button"][title]').waitFor();
  expect(await create.isDisabled()).toBe(true);
  expect(await create.getAttribute("title")).toBe("This dashboard is read-only.");
});
