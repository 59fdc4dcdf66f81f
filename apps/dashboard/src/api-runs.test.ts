/**
 * The runs API over real HTTP on a real deployment: lists with filters and
 * cursors, search, a run's detail, timeline pages, one event whole, blobs,
 * the tree, and secrets never sent in clear.
 */

import { REDACTED } from "@errand/core";
import type { RunSummary } from "@errand/engine";
import { SECRET_KEY_SAMPLES } from "@errand/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TimelineEvent } from "./present/timeline.js";
import type { Waterfall } from "./present/waterfall.js";
import type { BlobView } from "./reads/blob.js";
import type { RunTree } from "./reads/run-tree.js";
import type { RunWithUsage } from "./reads/run-usage.js";
import type { RunDetail } from "./reads/run-view.js";
import type { SearchPage } from "./reads/search-runs.js";
import {
  BIG_CITY,
  CITY,
  cityAnswerSchema,
  cityItem,
  gatedThenRecord,
  invalidThenRecord,
  LEAD,
  LOOKUP_SECRET,
  leadScript,
  lookupThenRecord,
  openGate,
} from "./test-support/agents.js";
import { requestJson } from "./test-support/http.js";
import { startWorkload, type Workload } from "./test-support/workload.js";

interface Page<T> {
  items: T[];
  count: number;
  hasMore: boolean;
  nextCursor?: string;
}

let w: Workload;
let base: string;
let lead: string;
let children: string[];
let batch: string[];
let failedRun: string;
let bigRun: string;
let longInputRun: string;
const everyRun: string[] = [];

const get = <T>(path: string) => requestJson<T>(base, path);

async function fireCity(script: unknown[], metadata: Record<string, string>, extra = {}) {
  const { runId } = await w.errand.fire({
    agent: CITY,
    input: { script, ...extra },
    outputSchema: cityAnswerSchema,
    metadata,
  });
  everyRun.push(runId);
  return runId;
}

beforeAll(async () => {
  w = await startWorkload("runs");
  base = w.dashboard.url;
  const fired = await w.errand.fire({
    agent: LEAD,
    input: {
      script: leadScript([
        cityItem(lookupThenRecord("Lyon"), { city: "Lyon", apiToken: LOOKUP_SECRET }),
        cityItem(invalidThenRecord("Oslo"), { city: "Oslo" }),
      ]),
    },
    metadata: { customer: "acme-corp", ticket: "T-1001" },
  });
  lead = fired.runId;
  everyRun.push(lead);
  await w.waitForEvent(lead);
  const byCity = await w.childrenByCity(lead);
  children = [byCity.get("Lyon")!, byCity.get("Oslo")!];
  everyRun.push(...children);
  batch = [];
  for (const city of ["Paris", "Rome", "Bern", "Riga"]) {
    batch.push(await fireCity(lookupThenRecord(city), { batch: `b-${city.toLowerCase()}` }));
  }
  failedRun = await fireCity([{ say: "I forgot to answer." }], { batch: "b-none" });
  bigRun = await fireCity(lookupThenRecord(BIG_CITY), { batch: "b-big" });
  longInputRun = await fireCity(
    lookupThenRecord("Nice"),
    { batch: "b-long" },
    {
      note: "n".repeat(5_000),
    },
  );
  for (const runId of everyRun) await w.waitForResult(runId);
});

afterAll(async () => {
  await w?.stop();
});

describe("GET /api/runs", () => {
  it("lists every run newest first, as a page", async () => {
    const { status, body } = await get<Page<RunSummary>>("/api/runs");
    expect(status).toBe(200);
    expect(body.count).toBe(everyRun.length);
    expect(body.hasMore).toBe(false);
    expect(new Set(body.items.map((item) => item.runId))).toEqual(new Set(everyRun));
    const created = body.items.map((item) => `${item.createdAt} ${item.runId}`);
    expect(created).toEqual([...created].sort().reverse());
  });

  it("filters by status, agent and parent", async () => {
    const failed = await get<Page<RunSummary>>("/api/runs?status=failed");
    expect(failed.body.items.map((item) => item.runId)).toEqual([failedRun]);
    expect(failed.body.items[0]?.error).toEqual({ code: "no_structured_output" });

    const leads = await get<Page<RunSummary>>(`/api/runs?agent=${LEAD}`);
    expect(leads.body.items.map((item) => item.runId)).toEqual([lead]);

    const kids = await get<Page<RunSummary>>(`/api/runs?parent=${lead}`);
    expect(kids.body.items.map((item) => item.runId).sort()).toEqual([...children].sort());
    expect(kids.body.items.every((item) => item.status === "succeeded")).toBe(true);

    const succeeded = await get<Page<RunSummary>>(`/api/runs?status=succeeded&agent=${CITY}`);
    expect(succeeded.body.count).toBe(everyRun.length - 2);
  });

  it("gives each settled run its tokens, from its stored result, in lists and searches", async () => {
    const listed = await get<Page<RunWithUsage>>("/api/runs");
    for (const item of listed.body.items) {
      const result = await w.errand.result(item.runId);
      expect(item.usage).toEqual(result?.usage);
    }
    expect(listed.body.items.every((item) => (item.usage?.inputTokens ?? 0) > 0)).toBe(true);
    const found = await get<Page<RunWithUsage>>("/api/runs?q=acme");
    expect(found.body.items.map((item) => item.runId)).toEqual([lead]);
    expect(found.body.items[0]?.usage).toEqual((await w.errand.result(lead))?.usage);
  });

  it("pages with cursors: every run once, in order, whatever the page size", async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const query = cursor === undefined ? "" : `&cursor=${cursor}`;
      const { body } = await get<Page<RunSummary>>(`/api/runs?limit=3${query}`);
      expect(body.count).toBeLessThanOrEqual(3);
      seen.push(...body.items.map((item) => item.runId));
      cursor = body.hasMore ? body.nextCursor : undefined;
      if (body.hasMore) expect(body.nextCursor).toBeTypeOf("string");
      pages += 1;
    } while (cursor !== undefined);
    expect(pages).toBe(Math.ceil(everyRun.length / 3));
    const all = await get<Page<RunSummary>>("/api/runs");
    expect(seen).toEqual(all.body.items.map((item) => item.runId));
  });

  it("refuses bad filters, limits and cursors with 400 invalid_spec", async () => {
    for (const query of [
      "status=bogus",
      "limit=abc",
      "limit=0",
      "cursor=not-a-cursor",
      "parent=x",
    ]) {
      const { status, body } = await get<{ error: { code: string; message: string } }>(
        `/api/runs?${query}`,
      );
      expect(status, query).toBe(400);
      expect(body.error.code, query).toBe("invalid_spec");
    }
  });
});

describe("GET /api/runs?q= (search)", () => {
  it("finds a run by its whole runId", async () => {
    const { body } = await get<SearchPage>(`/api/runs?q=${batch[2]}`);
    expect(body.items.map((item) => item.runId)).toEqual([batch[2]]);
    expect(body.items[0]?.match).toEqual({ in: "runId" });
  });

  it("finds runs by the start of a runId, in any case", async () => {
    const prefix = batch[1]!.slice(0, 18);
    const { body } = await get<SearchPage>(`/api/runs?q=${prefix.toLowerCase()}`);
    expect(body.items.map((item) => item.runId)).toContain(batch[1]);
    expect(body.items.every((item) => item.runId.startsWith(prefix))).toBe(true);
  });

  it("finds runs by a metadata value, saying which key matched", async () => {
    const acme = await get<SearchPage>("/api/runs?q=ACME");
    expect(acme.body.items.map((item) => item.runId)).toEqual([lead]);
    expect(acme.body.items[0]?.match).toEqual({
      in: "metadata",
      key: "customer",
      value: "acme-corp",
    });
    const rome = await get<SearchPage>("/api/runs?q=b-rome");
    expect(rome.body.items.map((item) => item.runId)).toEqual([batch[1]]);
    const secret = await get<SearchPage>(`/api/runs?q=${LOOKUP_SECRET.slice(0, 12)}`);
    expect(secret.body.items).toEqual([]);
    const none = await get<SearchPage>("/api/runs?q=no-such-value");
    expect(none.body).toMatchObject({ items: [], count: 0, hasMore: false });
    expect(none.body.scanned).toBe(everyRun.length);
  });

  it("combines the search with the filters and pages through matches", async () => {
    const failed = await get<SearchPage>("/api/runs?q=b-&status=failed");
    expect(failed.body.items.map((item) => item.runId)).toEqual([failedRun]);
    const first = await get<SearchPage>("/api/runs?q=b-&limit=2");
    expect(first.body.count).toBe(2);
    expect(first.body.hasMore).toBe(true);
    const second = await get<SearchPage>(`/api/runs?q=b-&limit=50&cursor=${first.body.nextCursor}`);
    const found = [...first.body.items, ...second.body.items].map((item) => item.runId);
    expect(new Set(found)).toEqual(new Set([...batch, failedRun, bigRun, longInputRun]));
    expect(found).toHaveLength(new Set(found).size);
  });
});

describe("GET /api/runs/:runId", () => {
  it("is the stored RunResult of a settled run, with what it was fired with", async () => {
    const { status, body } = await get<RunDetail>(`/api/runs/${children[0]}`);
    expect(status).toBe(200);
    expect(body.run).toEqual(await w.errand.result(children[0]!));
    expect(body.run.output).toEqual({ city: "Lyon", population: 4_000 });
    expect(body.definition.metadata).toEqual({ city: "Lyon", apiToken: REDACTED });
    expect(body.definition.outputSchema).toEqual(cityAnswerSchema);
    expect(body.definition.depth).toBe(1);
    const leadDetail = await get<RunDetail>(`/api/runs/${lead}`);
    expect(leadDetail.body.run).toEqual(await w.errand.result(lead));
    expect(leadDetail.body.run.text).toBe("All children collected.");
  });

  it("answers 404 for an unknown run and 400 for a malformed runId", async () => {
    const unknown = `${children[0]!.slice(0, -4)}ZZZZ`;
    const missing = await get<{ error: { code: string } }>(`/api/runs/${unknown}`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("not_found");
    const malformed = await get<{ error: { code: string } }>("/api/runs/not-a-run");
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe("invalid_spec");
  });
});

describe("GET /api/runs/:runId/events", () => {
  it("pages through the whole log in seq order, as the client reads it", async () => {
    const log = [];
    for await (const event of w.errand.events(children[1]!)) log.push(event);
    const seen: TimelineEvent[] = [];
    let cursor = "";
    for (;;) {
      const { body } = await get<Page<TimelineEvent>>(
        `/api/runs/${children[1]}/events?limit=2${cursor}`,
      );
      seen.push(...body.items);
      if (!body.hasMore) break;
      cursor = `&cursor=${body.nextCursor}`;
    }
    expect(seen.map((event) => [event.seq, event.type])).toEqual(
      log.map((event) => [event.seq, event.type]),
    );
    const refused = seen.find((event) => event.type === "refused");
    expect(refused?.data).toMatchObject({ reason: "invalid-arguments" });
    expect(seen.at(-1)?.type).toBe("finished");
  });

  it("redacts secrets in tool arguments, results and responses, everywhere", async () => {
    const { body } = await get<Page<TimelineEvent>>(`/api/runs/${children[0]}/events`);
    const called = body.items.find((event) => event.type === "tool-called");
    expect(called?.data).toMatchObject({
      name: "lookup_population",
      args: { city: "Lyon", apiKey: REDACTED },
    });
    const result = body.items.find((event) => event.type === "tool-result");
    expect(result?.data).toMatchObject({ result: { source: { token: REDACTED } } });
    const responded = body.items.find((event) => event.type === "model-responded");
    expect(responded?.data).toMatchObject({ calls: [{ args: { apiKey: REDACTED } }] });
    for (const path of [
      `/api/runs/${children[0]}/events`,
      `/api/runs/${children[0]}`,
      `/api/runs/${children[0]}/events/${called?.seq}`,
      `/api/runs?q=Lyon`,
      `/api/runs/${lead}/events`,
    ]) {
      const response = await fetch(new URL(path, base));
      expect(await response.text(), path).not.toContain(LOOKUP_SECRET);
    }
  });

  it("redacts every spelling of a secret's key: input, metadata, the run's detail and its events", async () => {
    const keys = SECRET_KEY_SAMPLES;
    const secrets = Object.fromEntries(keys.map((key, i) => [key, `hidden-value-${i}`]));
    const runId = await fireCity(lookupThenRecord("Nice"), secrets, {
      settings: { ...secrets },
    });
    await w.waitForEvent(runId);
    const hidden = Object.fromEntries(keys.map((key) => [key, REDACTED]));

    const queued = await get<TimelineEvent>(`/api/runs/${runId}/events/1`);
    expect(queued.body.data).toMatchObject({ input: { settings: hidden }, metadata: hidden });
    const detail = await get<RunDetail>(`/api/runs/${runId}`);
    expect(detail.body.definition.metadata).toEqual(hidden);
    for (const path of [
      `/api/runs/${runId}`,
      `/api/runs/${runId}/events`,
      `/api/runs/${runId}/events/1`,
    ]) {
      const response = await fetch(new URL(path, base));
      expect(await response.text(), path).not.toContain("hidden-value-");
    }
  });

  it("shortens large values, and gives the whole event by seq", async () => {
    const { body } = await get<Page<TimelineEvent>>(`/api/runs/${longInputRun}/events?limit=1`);
    const queued = body.items[0]!;
    expect(queued.type).toBe("run-queued");
    expect(queued.truncated).toBe(true);
    const note = (queued.data as { input: { note: string } }).input.note;
    expect(note).toMatch(/^n{2000}… \[3000 more characters\]$/);
    const whole = await get<TimelineEvent>(`/api/runs/${longInputRun}/events/1`);
    expect(whole.body.truncated).toBe(false);
    expect((whole.body.data as { input: { note: string } }).input.note).toBe("n".repeat(5_000));
    const detail = await get<RunDetail>(`/api/runs/${longInputRun}`);
    expect(detail.body.definition.inputTruncated).toBe(true);
    const missing = await get<{ error: { code: string } }>(`/api/runs/${longInputRun}/events/999`);
    expect(missing.status).toBe(404);
  });

  it("serves a stored large tool result as a blob, redacted", async () => {
    const { body } = await get<Page<TimelineEvent>>(`/api/runs/${bigRun}/events`);
    const result = body.items.find((event) => event.type === "tool-result");
    const ref = (result!.data as { ref?: { ref: string } }).ref?.ref;
    expect(ref).toBe(`resource://runs/${bigRun}/blobs/0`);
    const blob = await get<BlobView>(`/api/runs/${bigRun}/blobs/0`);
    expect(blob.status).toBe(200);
    expect(blob.body.json).toMatchObject({
      city: BIG_CITY,
      source: { token: REDACTED },
      history: "x".repeat(40_000),
    });
    const missing = await get<{ error: { code: string } }>(`/api/runs/${bigRun}/blobs/7`);
    expect(missing.status).toBe(404);
  });
});

describe("GET /api/runs/:runId/tree", () => {
  it("is the tree of the run's root, children in creation order with their statuses", async () => {
    const { body } = await get<RunTree>(`/api/runs/${children[1]}/tree`);
    expect(body.runId).toBe(children[1]);
    expect(body.root.runId).toBe(lead);
    expect(body.root.status).toBe("succeeded");
    const listed = await w.errand.list({ parentRunId: lead });
    const creationOrder = listed.items.map((item) => item.runId).reverse();
    expect(body.root.children.map((child) => [child.runId, child.status])).toEqual(
      creationOrder.map((child) => [child, "succeeded"]),
    );
    expect([...creationOrder].sort()).toEqual([...children].sort());
    expect(body.root.children.every((child) => child.children.length === 0)).toBe(true);
    expect(body).toMatchObject({ nodes: 3, truncated: false });
  });

  it("is a lone root for a run without children", async () => {
    const { body } = await get<RunTree>(`/api/runs/${batch[0]}/tree`);
    expect(body.root).toMatchObject({ runId: batch[0], children: [], moreChildren: false });
    expect(body.nodes).toBe(1);
  });
});

describe("unknown API routes", () => {
  it("answer 404 as JSON", async () => {
    const { status, body } = await get<{ error: { code: string } }>("/api/nothing-here");
    expect(status).toBe(404);
    expect(body.error.code).toBe("not_found");
  });
});

describe("a parked parent", () => {
  it("says what it waits for, in its detail and its timeline, until it resumes", async () => {
    const { runId: parent } = await w.errand.fire({
      agent: LEAD,
      input: { script: leadScript([cityItem(gatedThenRecord("api-parked", "Turin"))]) },
    });
    await w.waitForEvent(parent, (event) => event.type === "run-parked");
    const parked = await get<RunDetail>(`/api/runs/${parent}`);
    expect(parked.body.run).toMatchObject({
      status: "running",
      waiting: { reason: "waiting for 1 of 1 run to settle", runs: 1 },
    });
    const timeline = await get<Page<TimelineEvent>>(`/api/runs/${parent}/events`);
    const parkedEvent = timeline.body.items.find((event) => event.type === "run-parked");
    expect(parkedEvent?.data).toMatchObject({ reason: "waiting for 1 of 1 run to settle" });
    const waiting = await get<Waterfall>(`/api/runs/${parent}/waterfall`);
    expect(waiting.body.waitingOn).toMatchObject({
      kind: "wait",
      label: "waiting for 1 of 1 run to settle",
      waitingFor: 1,
    });
    expect(waiting.body.bars.at(-1)).toMatchObject({ kind: "wait", outcome: "open" });
    const listedRunning = await get<Page<RunWithUsage>>(`/api/runs?status=running&agent=${LEAD}`);
    expect(listedRunning.body.items.map((item) => [item.runId, item.usage])).toEqual([
      [parent, undefined],
    ]);

    openGate("api-parked");
    await w.waitForResult(parent);
    const settled = await get<RunDetail>(`/api/runs/${parent}`);
    expect(settled.body.run.status).toBe("succeeded");
    expect(settled.body.run.waiting).toBeUndefined();
    const after = await get<Waterfall>(`/api/runs/${parent}/waterfall`);
    expect(after.body.waitingOn).toBeUndefined();
    expect(after.body.endAt).toBe(settled.body.run.settledAt);
    expect(after.body.bars.map((bar) => `${bar.kind} ${bar.outcome}`)).toEqual([
      "queued ok",
      "model ok",
      "tool ok",
      "model ok",
      "tool parked",
      "wait ok",
      "tool ok",
      "model ok",
    ]);
  });
});
