/**
 * The schedules over real HTTP on a real deployment, whose worker turns
 * ticks into runs: each schedule listed with its cadence, overlap, catch-up
 * and next and last fire; one schedule with the runs it made, newest first,
 * each with its status; pausing stops its runs and resuming starts them
 * again; creating one (checked by the engine's upsert: a cron expression
 * of the wrong field count, an unknown agent and a body that is not JSON
 * refused with nothing written), which then fires, and removing it; and
 * every action refused in read-only mode, without the CSRF header, from
 * another origin, and for a schedule that does not exist.
 */
import { SCHEDULE_METADATA_KEY } from "@errand/engine";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RemovedSchedule } from "./http/schedule-routes.js";
import { CSRF_HEADER } from "./http/security.js";
import type { ScheduleDetail } from "./reads/schedules.js";
import { CITY, LEAD, LOOKUP_SECRET, lookupThenRecord } from "./test-support/agents.js";
import { csrfTokenOf, postAction, requestJson } from "./test-support/http.js";
import { waitFor } from "./test-support/wait-for.js";
import { startWorkload, type Workload } from "./test-support/workload.js";

type ErrorAnswer = { error: { code: string; message: string } };
type ScheduleView = ScheduleDetail["schedule"];

let w: Workload;
let base: string;

beforeAll(async () => {
  w = await startWorkload("schedules");
  base = w.dashboard.url;
  await w.errand.schedules.upsert({
    id: "city-every-second",
    agent: CITY,
    input: { script: lookupThenRecord("Oslo") },
    everyMs: 1_000,
  });
  await w.errand.schedules.upsert({
    id: "nightly-lead",
    agent: LEAD,
    input: { script: [{ say: "Nightly." }] },
    cron: "0 3 * * *",
    timezone: "Europe/Paris",
    overlap: "allow",
    catchUp: "none",
  });
});

afterAll(async () => {
  await w?.stop();
});

const detailOf = async (id: string) =>
  (await requestJson<ScheduleDetail>(base, `/api/schedules/${id}`)).body;

/** The schedule's detail once it has made at least `count` runs, the newest settled. */
function withRuns(id: string, count: number): Promise<ScheduleDetail> {
  return waitFor(
    `schedule ${id} to have made ${count} runs, the newest settled`,
    async () => {
      const detail = await detailOf(id);
      const ready = detail.runs.length >= count && detail.runs[0]?.run?.settledAt !== undefined;
      return ready ? detail : undefined;
    },
    { timeoutMs: 20_000 },
  );
}

describe("GET /api/schedules", () => {
  it("lists every schedule with its cadence, overlap, catch-up, state and next and last fire", async () => {
    await withRuns("city-every-second", 1);
    const { status, body } = await requestJson<{ items: ScheduleView[] }>(base, "/api/schedules");
    expect(status).toBe(200);
    expect(body.items.map((schedule) => schedule.id)).toEqual([
      "city-every-second",
      "nightly-lead",
    ]);
    const [every, nightly] = body.items;
    expect(every).toMatchObject({ agent: CITY, everyMs: 1_000, overlap: "skip", catchUp: "last" });
    expect(every!.paused).toBe(false);
    expect(Date.parse(every!.nextFireAt!)).toBeGreaterThan(Date.parse(every!.lastFireAt!));
    expect(nightly).toMatchObject({
      agent: LEAD,
      cron: "0 3 * * *",
      timezone: "Europe/Paris",
      overlap: "allow",
      catchUp: "none",
      paused: false,
      lastRuns: [],
    });
    expect(nightly!.lastFireAt).toBeUndefined();
    // The input's apiKey is a secret: shown redacted, never as it is.
    expect(JSON.stringify(body)).not.toContain(LOOKUP_SECRET);
    expect(JSON.stringify(every!.input)).toContain('"apiKey":"[redacted]"');
    // 03:00 in Paris is 01:00 or 02:00 UTC.
    expect(new Date(nightly!.nextFireAt!).getUTCHours()).toBeOneOf([1, 2]);
  });
});

describe("GET /api/schedules/:id", () => {
  it("answers the schedule and the runs it made, newest first, each its status and tick", async () => {
    const detail = await withRuns("city-every-second", 2);
    expect(detail.schedule.id).toBe("city-every-second");
    expect(JSON.stringify(detail)).not.toContain(LOOKUP_SECRET);
    const ticks = detail.runs.map((run) => Date.parse(run.tick));
    expect(ticks).toEqual([...ticks].sort((a, b) => b - a));
    expect(detail.schedule.lastFireAt).toBe(detail.runs[0]!.tick);
    const [newest] = detail.runs;
    expect(newest!.run).toMatchObject({ runId: newest!.runId, agent: CITY, status: "succeeded" });
    const [queued] = await w.errand.store.readLog(newest!.runId);
    expect(queued?.type === "run-queued" && queued.data.metadata[SCHEDULE_METADATA_KEY]).toBe(
      "city-every-second",
    );
  });

  it("answers 404 for a schedule that does not exist", async () => {
    const { status, body } = await requestJson<ErrorAnswer>(base, "/api/schedules/no-such");
    expect(status).toBe(404);
    expect(body.error.code).toBe("not_found");
  });
});

describe("POST /api/schedules/:id/pause and /resume", () => {
  it("pauses a schedule, which then makes no run, and resumes it, which makes runs again", async () => {
    const paused = await postAction<ScheduleView>(base, "/api/schedules/city-every-second/pause");
    expect(paused.status).toBe(200);
    expect(paused.body.paused).toBe(true);
    expect(paused.body.nextFireAt).toBeUndefined();
    expect(JSON.stringify(paused.body)).not.toContain(LOOKUP_SECRET);
    // A tick already in hand may still fire once: count from after it.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const before = (await detailOf("city-every-second")).runs.length;
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const after = await detailOf("city-every-second");
    expect(after.runs.length).toBe(before);
    expect(after.schedule.paused).toBe(true);

    const resumed = await postAction<ScheduleView>(base, "/api/schedules/city-every-second/resume");
    expect(resumed.body).toMatchObject({ id: "city-every-second", paused: false });
    expect(resumed.body.nextFireAt).toBeDefined();
    await withRuns("city-every-second", before + 1);
  });

  it("refuses them in read-only mode, without the CSRF header, and for a schedule that does not exist", async () => {
    const readOnly = await w.startDashboard({ readOnly: true });
    for (const action of ["pause", "resume"]) {
      const path = `/api/schedules/nightly-lead/${action}`;
      const refused = await postAction<ErrorAnswer>(readOnly.url, path);
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe("read_only");
      const forged = await requestJson<ErrorAnswer>(base, path, { method: "POST" });
      expect(forged.status).toBe(403);
      expect(forged.body.error.code).toBe("csrf_refused");
      const unknown = await postAction<ErrorAnswer>(base, `/api/schedules/no-such/${action}`);
      expect(unknown.status).toBe(404);
      expect(unknown.body.error.code).toBe("not_found");
    }
    const [, nightly] = await w.errand.schedules.list();
    expect(nightly).toMatchObject({ id: "nightly-lead", paused: false });
  });
});

describe("POST /api/schedules and /api/schedules/:id/remove", () => {
  const idsNow = async () => (await w.errand.schedules.list()).map((schedule) => schedule.id);

  it("creates a cron schedule, which fires, and removes it, after which it is gone", async () => {
    const created = await postAction<ScheduleView>(base, "/api/schedules", {
      id: "city-each-second",
      agent: CITY,
      input: { script: lookupThenRecord("Riga") },
      cron: "* * * * * *",
      timezone: "Europe/Riga",
      overlap: "allow",
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      id: "city-each-second",
      agent: CITY,
      cron: "* * * * * *",
      timezone: "Europe/Riga",
      overlap: "allow",
      catchUp: "last",
      paused: false,
    });
    expect(created.body.nextFireAt).toBeDefined();
    // The lookup's apiKey is a secret: answered redacted, as every value.
    expect(JSON.stringify(created.body)).not.toContain(LOOKUP_SECRET);
    expect(await idsNow()).toContain("city-each-second");
    const detail = await withRuns("city-each-second", 1);
    expect(detail.runs[0]!.run).toMatchObject({ agent: CITY, status: "succeeded" });

    const removed = await postAction<RemovedSchedule>(
      base,
      "/api/schedules/city-each-second/remove",
    );
    expect(removed).toMatchObject({ status: 200, body: { id: "city-each-second", removed: true } });
    expect(await idsNow()).not.toContain("city-each-second");
    const again = await postAction<ErrorAnswer>(base, "/api/schedules/city-each-second/remove");
    expect({ status: again.status, code: again.body.error.code }).toEqual({
      status: 404,
      code: "not_found",
    });
  });

  it("refuses a cron expression of the wrong field count, an unknown agent and a body that is not JSON, writing nothing", async () => {
    const before = await idsNow();
    const fourFields = await postAction<ErrorAnswer>(base, "/api/schedules", {
      id: "bad-cron",
      agent: CITY,
      input: null,
      cron: "0 3 * *",
    });
    expect(fourFields.status).toBe(400);
    expect(fourFields.body.error.code).toBe("invalid_spec");
    expect(fourFields.body.error.message).toContain('cron: "0 3 * *" is not a cron expression');
    expect(fourFields.body.error.message).toContain("it has 4 fields");
    const unknown = await postAction<ErrorAnswer>(base, "/api/schedules", {
      id: "no-agent",
      agent: "no-such-agent",
      input: null,
      everyMs: 60_000,
    });
    expect({ status: unknown.status, code: unknown.body.error.code }).toEqual({
      status: 400,
      code: "unknown_agent",
    });
    const both = await postAction<ErrorAnswer>(base, "/api/schedules", {
      id: "both",
      agent: CITY,
      input: null,
    });
    expect(both.body.error.message).toContain("give exactly one of cron and everyMs");
    const csrf = await csrfTokenOf(base);
    const notJson = await requestJson<ErrorAnswer>(base, "/api/schedules", {
      method: "POST",
      headers: { "content-type": "application/json", [CSRF_HEADER]: csrf },
      body: "{ id: nightly",
    });
    expect({ status: notJson.status, code: notJson.body.error.code }).toEqual({
      status: 400,
      code: "invalid_request",
    });
    expect(await idsNow()).toEqual(before);
  });

  it("refuses creating and removing in read-only mode, without the CSRF header and from another origin", async () => {
    const before = await idsNow();
    const readOnly = await w.startDashboard({ readOnly: true });
    const spec = { id: "refused", agent: CITY, input: null, cron: "0 3 * * *" };
    for (const [path, body] of [
      ["/api/schedules", spec],
      ["/api/schedules/nightly-lead/remove", {}],
    ] as const) {
      const refused = await postAction<ErrorAnswer>(readOnly.url, path, body);
      expect({ path, status: refused.status, code: refused.body.error.code }).toEqual({
        path,
        status: 403,
        code: "read_only",
      });
      const forged = await requestJson<ErrorAnswer>(base, path, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      expect({ path, code: forged.body.error.code }).toEqual({ path, code: "csrf_refused" });
      const foreign = await postAction<ErrorAnswer>(base, path, body, {
        origin: "http://evil.example",
      });
      expect({ path, code: foreign.body.error.code }).toEqual({ path, code: "csrf_refused" });
    }
    expect(await idsNow()).toEqual(before);
  });
});
