/**
 * Bulk re-run over real HTTP on a real deployment: a selection re-run and
 * answered run by run (re-fired with `rerunOf`, unknown, malformed, and
 * refused with `agent_version_unavailable` when no worker of the version
 * that ran lives), each once however often the request is sent; the runs a
 * filter matches — by search and by the list's filters — page after page
 * through `nextCursor`, each once; and refused like every action in
 * read-only mode, without the CSRF header, and for a body that is not one.
 */
import { randomBytes } from "node:crypto";
import { newRunId } from "@errand/core";
import { MAX_RERUN, RERUN_OF_KEY } from "@errand/engine";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BulkRerunResult } from "./actions/bulk-rerun.js";
import { CSRF_HEADER } from "./http/security.js";
import { CITY, cityItem, LEAD, lookupThenRecord } from "./test-support/agents.js";
import { postAction, requestJson } from "./test-support/http.js";
import { startCityWorkerOfVersion, startWorkload, type Workload } from "./test-support/workload.js";

type ErrorAnswer = { error: { code: string; message: string } };

const PATH = "/api/runs/rerun";

let w: Workload;
let base: string;
/** A city run that ran on version "old", whose only worker has closed since. */
let onGoneVersion: string;

/** Fires `count` city runs labelled `batch` and waits for their results. */
async function settledCityRuns(batch: string, count: number): Promise<string[]> {
  const runIds: string[] = [];
  for (let i = 0; i < count; i++) {
    const { runId } = await w.errand.fire(cityItem(lookupThenRecord(`City${i}`), { batch }));
    runIds.push(runId);
  }
  for (const runId of runIds) await w.waitForResult(runId);
  return runIds;
}

/** The metadata each run was fired with. */
async function metadataOf(runId: string): Promise<Record<string, string>> {
  const [queued] = await w.errand.store.readLog(runId);
  if (queued?.type !== "run-queued") throw new Error(`${runId} has no run-queued`);
  return queued.data.metadata;
}

beforeAll(async () => {
  w = await startWorkload("rerun");
  base = w.dashboard.url;
  const old = await startCityWorkerOfVersion(w, "old");
  try {
    ({ runId: onGoneVersion } = await w.errand.fire({
      ...cityItem(lookupThenRecord("Tallinn")),
      agentVersion: "old",
    }));
    await w.waitForResult(onGoneVersion);
  } finally {
    await old.close({ graceMs: 500 });
  }
});

afterAll(async () => {
  await w?.stop();
});

describe("POST /api/runs/rerun with a selection", () => {
  it("re-runs each run once, answered run by run: re-fired, unknown, malformed, version gone", async () => {
    const sources = await settledCityRuns("selection", 2);
    const unknown = newRunId({ shard: 0, nowMs: Date.now(), random: randomBytes(10) });
    const runIds = [...sources, unknown, "not-a-run", onGoneVersion, sources[0]!];
    const sent = { runIds, requestKey: "selection-1" };
    const { status, body } = await postAction<BulkRerunResult>(base, PATH, sent);
    expect(status).toBe(200);
    expect(body.results.map((item) => item.sourceRunId)).toEqual(runIds.slice(0, -1));
    expect(body).toMatchObject({ total: 5, succeeded: 2, failed: 3, hasMore: false });
    expect(body.results[2]).toMatchObject({ ok: false, error: { code: "not_found" } });
    expect(body.results[3]).toMatchObject({ ok: false, error: { code: "invalid_spec" } });
    expect(body.results[4]).toMatchObject({
      ok: false,
      error: { code: "agent_version_unavailable" },
      retryable: true,
    });
    const fired = body.results.slice(0, 2).map((item) => item.runId!);
    for (const [index, runId] of fired.entries()) {
      expect(await metadataOf(runId)).toEqual({
        batch: "selection",
        [RERUN_OF_KEY]: sources[index],
      });
      expect((await w.errand.result(runId, { waitMs: 20_000 }))?.status).toBe("succeeded");
    }

    // The request sent again (a retry after a lost answer) fires nothing twice.
    const again = await postAction<BulkRerunResult>(base, PATH, sent);
    expect(again.body.results.slice(0, 2)).toEqual(
      fired.map((runId, index) => ({
        ok: true,
        sourceRunId: sources[index],
        runId,
        deduplicated: true,
      })),
    );
    const listed = await w.errand.list({ agent: CITY, limit: 100 });
    const rerunsOfFirst = [];
    for (const run of listed.items) {
      if ((await metadataOf(run.runId))[RERUN_OF_KEY] === sources[0]) rerunsOfFirst.push(run.runId);
    }
    expect(rerunsOfFirst).toEqual([fired[0]]);
  });

  it("re-runs on the newest live version when asked, where the version that ran is gone", async () => {
    const { body } = await postAction<BulkRerunResult>(base, PATH, {
      runIds: [onGoneVersion],
      version: "newest",
    });
    const [item] = body.results;
    expect(item).toMatchObject({ ok: true, sourceRunId: onGoneVersion });
    expect((await w.errand.result(item!.runId!, { waitMs: 20_000 }))?.status).toBe("succeeded");
  });
});

describe("POST /api/runs/rerun with a filter", () => {
  /** Every page of `filter`, `limit` runs a page, under one request key. */
  async function rerunAllPages(filter: Record<string, string>, requestKey: string) {
    const pages: BulkRerunResult[] = [];
    let cursor: string | undefined;
    do {
      const { status, body } = await postAction<BulkRerunResult>(base, PATH, {
        filter,
        limit: 2,
        requestKey,
        ...(cursor === undefined ? {} : { cursor }),
      });
      expect(status).toBe(200);
      pages.push(body);
      cursor = body.hasMore ? body.nextCursor : undefined;
    } while (cursor !== undefined && pages.length < 10);
    return pages;
  }

  it("re-runs every run a search matches, page after page, each once", async () => {
    const sources = await settledCityRuns("matching", 5);
    const pages = await rerunAllPages({ q: "matching", status: "succeeded" }, "matching-1");
    const results = pages.flatMap((page) => page.results);
    expect(pages.length).toBeGreaterThanOrEqual(3);
    expect(results.map((item) => item.sourceRunId)).toEqual([...sources].reverse());
    expect(results.every((item) => item.ok && item.deduplicated === undefined)).toBe(true);
    for (const item of results) {
      expect((await metadataOf(item.runId!))[RERUN_OF_KEY]).toBe(item.sourceRunId);
    }
  });

  it("re-runs every run the list's filters match, page after page, and a page sent again fires nothing twice", async () => {
    const leads: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { runId } = await w.errand.fire({
        agent: LEAD,
        input: { script: [{ say: `Done ${i}.` }] },
      });
      leads.push(runId);
    }
    for (const runId of leads) await w.waitForResult(runId);
    const filter = { agent: LEAD, status: "succeeded" };
    const pages = await rerunAllPages(filter, "leads-1");
    expect(pages.map((page) => page.results.length)).toEqual([2, 1]);
    const firstPage = pages[0]!.results;
    expect(firstPage.map((item) => item.sourceRunId)).toEqual([leads[2], leads[1]]);
    expect(pages[1]!.results.map((item) => item.sourceRunId)).toEqual([leads[0]]);

    // The last page sent again (a retry after a lost answer) fires nothing twice.
    const resent = await postAction<BulkRerunResult>(base, PATH, {
      filter,
      limit: 2,
      requestKey: "leads-1",
      cursor: pages[0]!.nextCursor,
    });
    expect(resent.body.results).toEqual([{ ...pages[1]!.results[0], deduplicated: true }]);
  });
});

describe("refusals of bulk re-run", () => {
  it(`refuses a body that is not one: empty, over ${MAX_RERUN} runs, both, a cursor beside runIds`, async () => {
    const tooMany = Array.from({ length: MAX_RERUN + 1 }, () =>
      newRunId({ shard: 1, nowMs: Date.now(), random: randomBytes(10) }),
    );
    const bodies = [
      [{ runIds: [] }, /runIds/],
      [{ runIds: tooMany }, /runIds/],
      [{ filter: { q: "x" }, runIds: ["y"] }, /runIds .* or filter/],
      [{ runIds: ["y"], cursor: "c" }, /cursor and limit go with filter/],
      [{ filter: {} }, /name at least one of q, status, agent, parent/],
      [{ filter: { agent: CITY }, limit: MAX_RERUN + 1 }, /limit/],
    ] as const;
    for (const [body, message] of bodies) {
      const answer = await postAction<ErrorAnswer>(base, PATH, body);
      expect(answer.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(answer.body.error.code).toBe("invalid_request");
      expect(answer.body.error.message).toMatch(message);
    }
  });

  it("refuses it in read-only mode, without the CSRF header and from another origin: nothing fired", async () => {
    const [source] = await settledCityRuns("guarded", 1);
    const readOnly = await w.startDashboard({ readOnly: true });
    for (const sent of [{ runIds: [source] }, { filter: { q: "guarded" } }]) {
      const refused = await postAction<ErrorAnswer>(readOnly.url, PATH, sent);
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe("read_only");
      const forged = await requestJson<ErrorAnswer>(base, PATH, {
        method: "POST",
        headers: { "content-type": "application/json", [CSRF_HEADER]: "forged" },
        body: JSON.stringify(sent),
      });
      expect(forged.status).toBe(403);
      expect(forged.body.error.code).toBe("csrf_refused");
      const foreign = await postAction<ErrorAnswer>(base, PATH, sent, {
        origin: "http://evil.example",
      });
      expect(foreign.status).toBe(403);
      expect(foreign.body.error.code).toBe("csrf_refused");
    }
    const runs = await w.errand.list({ agent: CITY, limit: 100 });
    for (const run of runs.items) {
      expect((await metadataOf(run.runId))[RERUN_OF_KEY]).not.toBe(source);
    }
  });
});
