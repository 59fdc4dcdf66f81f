/**
 * Search over large runs, over real HTTP on a real deployment: a page reads
 * no more than its budget of `run-queued` events (the rest is a cursor
 * away), runs searched before cost nothing, and searches beyond the cap are
 * refused with 503 and `Retry-After`.
 */
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEARCH_RETRY_AFTER_SECONDS } from "./http/app.js";
import { SEARCH_READ_BUDGET_BYTES } from "./reads/search-metadata.js";
import type { SearchPage } from "./reads/search-runs.js";
import { CITY, cityAnswerSchema } from "./test-support/agents.js";
import { requestJson } from "./test-support/http.js";
import { startWorkload, type Workload } from "./test-support/workload.js";

/** Runs whose inputs together are twice a page's read budget. */
const LARGE_RUNS = 40;
const INPUT_CHARS = SEARCH_READ_BUDGET_BYTES / (LARGE_RUNS / 2);

let w: Workload;
let base: string;
let needle: string;

const search = (query: string) => requestJson<SearchPage>(base, `/api/runs?${query}`);

beforeAll(async () => {
  w = await startWorkload("search-bounds", { maxConcurrentSearches: 1 });
  base = w.dashboard.url;
  const fired: string[] = [];
  for (let index = 0; index < LARGE_RUNS; index++) {
    const { runId } = await w.errand.fire({
      agent: CITY,
      input: { script: [{ say: "no answer" }], filler: "x".repeat(INPUT_CHARS) },
      outputSchema: cityAnswerSchema,
      metadata: { ticket: index === 0 ? "needle-7" : `hay-${index}` },
    });
    fired.push(runId);
  }
  needle = fired[0]!;
  for (const runId of fired) await w.waitForResult(runId);
});

afterAll(async () => {
  await w?.stop();
});

describe("a search over large runs", () => {
  it("reads no more than its budget a page, and reaches every run through its cursors", async () => {
    const first = await search("q=needle");
    expect(first.status).toBe(200);
    expect(first.body.items).toEqual([]);
    expect(first.body.hasMore).toBe(true);
    expect(first.body.scanned).toBeGreaterThan(0);
    expect(first.body.scanned).toBeLessThan(LARGE_RUNS);
    let page = first.body;
    let scanned = page.scanned;
    while (page.items.length === 0 && page.hasMore) {
      page = (await search(`q=needle&cursor=${page.nextCursor}`)).body;
      scanned += page.scanned;
    }
    expect(page.items.map((item) => item.runId)).toEqual([needle]);
    expect(page.items[0]?.match).toEqual({ in: "metadata", key: "ticket", value: "needle-7" });
    expect(scanned).toBe(LARGE_RUNS);
  });

  it("reads nothing again for runs searched before: the same search then looks at every run", async () => {
    const again = await search("q=needle");
    expect(again.body.items.map((item) => item.runId)).toEqual([needle]);
    expect(again.body.scanned).toBe(LARGE_RUNS);
  });
});

describe("searches beyond maxConcurrentSearches", () => {
  it("are refused with 503 busy and Retry-After while one runs, and served after", async () => {
    const pauser = new Redis(w.server.url);
    try {
      // Redis holds every command for 2 s: the first search stays in flight.
      await pauser.client("PAUSE", 2_000, "ALL");
      const answers = await Promise.all(
        ["hay-1", "hay-2", "hay-3", "hay-4"].map((q) => search(`q=${q}`)),
      );
      const refused = answers.filter((answer) => answer.status === 503);
      expect(refused).toHaveLength(3);
      for (const answer of refused) {
        expect(answer.headers.get("retry-after")).toBe(String(SEARCH_RETRY_AFTER_SECONDS));
        expect(answer.body).toMatchObject({ error: { code: "busy", retryable: true } });
      }
      expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
    } finally {
      pauser.disconnect();
    }
    const after = await search("q=hay-39");
    expect(after.status).toBe(200);
    expect(after.body.count).toBe(1);
  });
});
