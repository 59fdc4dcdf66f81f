/**
 * Bulk cancel over real HTTP on a real deployment: a selection of runs
 * cancelled at once, answered run by run (cancelled, already settled,
 * unknown, malformed), cascading when asked, capped in count; the open runs
 * a filter of the runs list matches, and no other; and refused like every
 * action without the CSRF header, from another origin or site, in
 * read-only mode and without the token.
 */
import { randomBytes } from "node:crypto";
import { newRunId } from "@errand/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BulkCancelResult, MAX_BULK_CANCEL } from "./actions/bulk-cancel.js";
import { openRunsMatching } from "./actions/open-runs-matching.js";
import { closeDashboardContext, openDashboardContext } from "./context.js";
import { CSRF_HEADER } from "./http/security.js";
import { resolveOptions } from "./options.js";
import { createSearchMetadataReader } from "./reads/search-metadata.js";
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
import {
  silentLogger,
  startWorkload,
  TEST_SHARDS,
  type Workload,
} from "./test-support/workload.js";

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

describe("POST /api/runs/cancel with a filter", () => {
  it("cancels the open runs the filter matches, and leaves the others", async () => {
    const matching = [
      await fireRunningRun(w, { batch: "filter-a" }),
      await fireRunningRun(w, { batch: "filter-a" }),
    ];
    const other = await fireRunningRun(w, { batch: "filter-b" });
    const { runId: settled } = await w.errand.fire({
      agent: CITY,
      input: { script: lookupThenRecord("Riga") },
      outputSchema: cityAnswerSchema,
      metadata: { batch: "filter-a" },
    });
    await w.waitForResult(settled);

    const { status, body } = await postAction<BulkCancelResult>(base, PATH, {
      filter: { q: "filter-a" },
      reason: "a bulk cancel by filter from a test",
    });
    expect(status).toBe(200);
    expect(body.more).toBe(false);
    expect(body.results.map((item) => item.runId).sort()).toEqual([...matching].sort());
    for (const item of body.results) expect(item).toMatchObject({ ok: true, requested: true });
    expect(await endsOf(matching)).toEqual(["cancelled", "cancelled"]);
    expect((await w.errand.store.readHead(other))?.status).toBe("running");

    // By agent and status, without a search: the one left.
    const byAgent = await postAction<BulkCancelResult>(base, PATH, {
      filter: { agent: CITY, status: "running" },
    });
    expect(byAgent.body.results.map((item) => item.runId)).toEqual([other]);
    expect(await endsOf([other])).toEqual(["cancelled"]);
  });

  it("names at most the cap of the open runs a filter matches, and says more match", async () => {
    const runIds = [
      await fireRunningRun(w, { batch: "filter-cap" }),
      await fireRunningRun(w, { batch: "filter-cap" }),
    ];
    const context = openDashboardContext(
      resolveOptions(
        { connection: w.server.url, prefix: w.prefix, shards: TEST_SHARDS, logger: silentLogger },
        {},
      ),
    );
    try {
      const reader = createSearchMetadataReader(context);
      const filter = { q: "filter-cap" };
      const one = await openRunsMatching(context, reader, filter, 1);
      expect(one.more).toBe(true);
      expect(one.runIds).toHaveLength(1);
      expect(runIds).toContain(one.runIds[0]);
      expect(await openRunsMatching(context, reader, filter, 2)).toEqual({
        runIds: [...runIds].reverse(),
        more: false,
      });
    } finally {
      await closeDashboardContext(context);
      for (const runId of runIds) await w.errand.cancel(runId);
      await endsOf(runIds);
    }
  });

  it("refuses an empty filter, a settled status, and a filter beside runIds", async () => {
    const bodies = [
      [{ filter: {} }, /name at least one of q, status, agent, parent/],
      [{ filter: { status: "failed" } }, /filter\.status/],
      [{ filter: { q: "x" }, runIds: ["y"] }, /runIds .* or filter/],
      [{ filter: { q: "x", limit: 5 } }, /filter/],
    ] as const;
    for (const [body, message] of bodies) {
      const answer = await postAction<ErrorAnswer>(base, PATH, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error.code).toBe("invalid_request");
      expect(answer.body.error.message).toMatch(message);
    }
  });
});

describe("guards of bulk cancel, by selection and by filter", () => {
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

  /** The run as a selection, and as the filter that matches it alone. */
  const bodies = () => [{ runIds: [runId] }, { filter: { q: runId } }];

  it("refuses it without the CSRF header, or with a wrong one", async () => {
    for (const csrf of [undefined, "forged"]) {
      for (const sent of bodies()) {
        const { status, body } = await requestJson<ErrorAnswer>(base, PATH, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            ...(csrf === undefined ? {} : { [CSRF_HEADER]: csrf }),
          },
          body: JSON.stringify(sent),
        });
        expect(status).toBe(403);
        expect(body.error.code).toBe("csrf_refused");
      }
    }
    await expectRunning();
  });

  it("refuses it from another origin or a cross-site request, even with the CSRF token", async () => {
    const cases: Record<string, string>[] = [
      { origin: "http://evil.example" },
      { "sec-fetch-site": "cross-site" },
    ];
    for (const headers of cases) {
      for (const sent of bodies()) {
        const { status, body } = await postAction<ErrorAnswer>(base, PATH, sent, headers);
        expect(status, JSON.stringify(headers)).toBe(403);
        expect(body.error.code).toBe("csrf_refused");
      }
    }
    await expectRunning();
  });

  it("refuses it in read-only mode, and without the token", async () => {
    const readOnly = await w.startDashboard({ readOnly: true });
    const guarded = await w.startDashboard({ token: TOKEN });
    for (const sent of bodies()) {
      const refused = await postAction<ErrorAnswer>(readOnly.url, PATH, sent);
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe("read_only");
      const anonymous = await postAction<ErrorAnswer>(guarded.url, PATH, sent);
      expect(anonymous.status).toBe(401);
      expect(anonymous.body.error.code).toBe("unauthorized");
    }
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
