/**
 * Bulk cancel over real HTTP on a real deployment: a selection of runs
 * cancelled at once, answered run by run (cancelled, already settled,
 * unknown, malformed), cascading when asked, capped in count, and refused
 * like every action without the CSRF header, from another origin or site,
 * in read-only mode and without the token.
 */
import { randomBytes } from "node:crypto";
import { newRunId } from "@errand/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BulkCancelResult, MAX_BULK_CANCEL } from "./actions/bulk-cancel.js";
import { CSRF_HEADER } from "./http/security.js";
import {
  CITY,
  cityAnswerSchema,
  cityItem,
  LEAD,
  leadScript,
  lookupThenRecord,
  slowChild,
} from "./test-support/agents.js";
import { postAction, requestJson } from "./test-support/http.js";
import { fireRunningRun } from "./test-support/running-run.js";
import { startWorkload, type Workload } from "./test-support/workload.js";

type ErrorAnswer = { error: { code: string; message: string } };

const PATH = "/api/runs/cancel";
const TOKEN = "bulk-token-0123456789abcdef";

let w: Workload;
let base: string;

beforeAll(async () => {
  w = await startWorkload("bulk");
  base = w.dashboard.url;
});

afterAll(async () => {
  await w?.stop();
});

const fireSlow = () => fireRunningRun(w);

/** The last event type of each run once it settles. */
const endsOf = (runIds: string[]) =>
  Promise.all(runIds.map(async (runId) => (await w.waitForEvent(runId)).at(-1)?.type));

describe("POST /api/runs/cancel", () => {
  it("cancels a selection and answers each run: cancelled, already settled, unknown, malformed", async () => {
    const slow = [await fireSlow(), await fireSlow(), await fireSlow()];
    const { runId: done } = await w.errand.fire({
      agent: CITY,
      input: { script: lookupThenRecord("Lyon") },
      outputSchema: cityAnswerSchema,
    });
    await w.waitForResult(done);
    const unknown = newRunId({ shard: 0, nowMs: Date.now(), random: randomBytes(10) });
    const runIds = [...slow, done, unknown, "not-a-run", slow[0]!];
    const { status, body } = await postAction<BulkCancelResult>(base, PATH, {
      runIds,
      reason: "a bulk cancel from a test",
    });
    expect(status).toBe(200);
    expect(body.results.map((item) => item.runId)).toEqual(runIds.slice(0, -1));
    expect(body.results.slice(0, 3)).toEqual(
      slow.map((runId) => ({ ok: true, runId, status: "running", requested: true })),
    );
    expect(body.results[3]).toEqual({
      ok: true,
      runId: done,
      status: "succeeded",
      requested: false,
    });
    expect(body.results[4]).toMatchObject({
      ok: false,
      runId: unknown,
      error: { code: "not_found" },
    });
    expect(body.results[5]).toMatchObject({ ok: false, error: { code: "invalid_spec" } });
    expect(await endsOf(slow)).toEqual(["cancelled", "cancelled", "cancelled"]);
    const [requested] = (await w.errand.store.readLog(slow[1]!)).filter(
      (event) => event.type === "cancel-requested",
    );
    expect(requested?.data).toEqual({ reason: "a bulk cancel from a test", by: "dashboard" });
  });

  it("cascades to each run's descendants when asked", async () => {
    const { runId: lead } = await w.errand.fire({
      agent: LEAD,
      input: { script: leadScript([cityItem(slowChild()), cityItem(slowChild())]) },
    });
    await w.waitForEvent(lead, (event) => event.type === "run-parked");
    const { body } = await postAction<BulkCancelResult>(base, PATH, {
      runIds: [lead],
      cascade: true,
    });
    const [answer] = body.results;
    if (answer?.ok !== true) throw new Error(`not cancelled: ${JSON.stringify(answer)}`);
    expect(answer.descendants).toHaveLength(2);
    const children = answer.descendants!.map((child) => child.runId);
    expect(await endsOf([lead, ...children])).toEqual(["cancelled", "cancelled", "cancelled"]);
  });

  it(`refuses an empty selection, more than ${MAX_BULK_CANCEL} runs, and a body that is not one`, async () => {
    const tooMany = Array.from({ length: MAX_BULK_CANCEL + 1 }, () =>
      newRunId({ shard: 1, nowMs: Date.now(), random: randomBytes(10) }),
    );
    for (const body of [{ runIds: [] }, { runIds: tooMany }, { runIds: "all" }, {}]) {
      const answer = await postAction<ErrorAnswer>(base, PATH, body);
      expect(answer.status, JSON.stringify(body).slice(0, 60)).toBe(400);
      expect(answer.body.error.code).toBe("invalid_request");
      expect(answer.body.error.message).toMatch(/runIds/);
    }
  });
});

describe("guards of bulk cancel", () => {
  let runId: string;

  beforeAll(async () => {
    runId = await fireSlow();
  });

  afterAll(async () => {
    await w.errand.cancel(runId);
  });

  async function expectRunning() {
    const head = await w.errand.store.readHead(runId);
    expect(head?.cancelRequested).toBe(false);
  }

  it("refuses it without the CSRF header, or with a wrong one", async () => {
    for (const csrf of [undefined, "forged"]) {
      const { status, body } = await requestJson<ErrorAnswer>(base, PATH, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(csrf === undefined ? {} : { [CSRF_HEADER]: csrf }),
        },
        body: JSON.stringify({ runIds: [runId] }),
      });
      expect(status).toBe(403);
      expect(body.error.code).toBe("csrf_refused");
    }
    await expectRunning();
  });

  it("refuses it from another origin or a cross-site request, even with the CSRF token", async () => {
    const cases: Record<string, string>[] = [
      { origin: "http://evil.example" },
      { "sec-fetch-site": "cross-site" },
    ];
    for (const headers of cases) {
      const { status, body } = await postAction<ErrorAnswer>(
        base,
        PATH,
        { runIds: [runId] },
        headers,
      );
      expect(status, JSON.stringify(headers)).toBe(403);
      expect(body.error.code).toBe("csrf_refused");
    }
    await expectRunning();
  });

  it("refuses it in read-only mode, and without the token", async () => {
    const readOnly = await w.startDashboard({ readOnly: true });
    const refused = await postAction<ErrorAnswer>(readOnly.url, PATH, { runIds: [runId] });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("read_only");
    const guarded = await w.startDashboard({ token: TOKEN });
    const anonymous = await postAction<ErrorAnswer>(guarded.url, PATH, { runIds: [runId] });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe("unauthorized");
    await expectRunning();
    const allowed = await postAction<BulkCancelResult>(
      guarded.url,
      PATH,
      { runIds: [runId] },
      { authorization: `Bearer ${TOKEN}` },
    );
    expect(allowed.body.results).toEqual([{ ok: true, runId, status: "running", requested: true }]);
  });
});
