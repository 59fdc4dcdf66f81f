/**
 * `rerun` on a real Redis with a worker and a collector: failed runs fired
 * again once each on the version that ran, `rerunOf` on each, the same call
 * made again firing nothing, a filter paged through, and the runs that cannot
 * be re-run refused one by one (an unknown id, a version with no live worker).
 */
import type { RunEvent } from "@errand/core";
import { describe, expect } from "vitest";
import { createLogger } from "../logger.js";
import type { EngineFixture } from "../test-support/engine-fixture.js";
import { engineTest } from "../test-support/engine-test.js";
import { startErrandStack } from "../test-support/errand-stack.js";
import { AnswerSchema, TEST_AGENTS, testAgents } from "../test-support/test-agents.js";
import { createErrand } from "./client.js";
import { MAX_RERUN, RERUN_OF_KEY } from "./rerun.js";

const it = engineTest("rerun");

const FAILING_RUNS = 6;

/** More failed runs than one `rerun` call takes (`MAX_RERUN`). */
const MANY_FAILING_RUNS = 120;

/** A run of the structured agent that finishes without its answer: it fails (`no_structured_output`). */
const failing = (index: number) => ({
  agent: TEST_AGENTS.structured,
  input: { script: [{ say: `no answer ${index}` }] },
  outputSchema: AnswerSchema,
  metadata: { batch: "nightly" },
});

function queuedOf(events: readonly RunEvent[]) {
  const [queued] = events;
  if (queued?.type !== "run-queued") throw new Error("a log starts with its run-queued");
  return queued.data;
}

/**
 * A worker of the test agents as version v1 with a collector, and `count`
 * runs of the structured agent fired and settled failed on it: the stack
 * (stop it) and the failed runs' ids.
 */
async function failedRunsOnV1(fx: EngineFixture, count: number, concurrency: number) {
  const stack = await startErrandStack({
    connection: fx.server.url,
    prefix: fx.prefix,
    logger: createLogger({ level: "silent" }),
    worker: {
      agents: testAgents({ redis: fx.redis, prefix: fx.prefix, version: "v1" }),
      concurrency,
    },
  });
  const fired = await stack.errand.fireMany(Array.from({ length: count }, (_, i) => failing(i)));
  const sources = fired.results.map((result) => result.runId!);
  const settled = await stack.errand.collect(sources, { waitMs: 120_000, limit: 500 });
  expect(settled.failed).toBe(count);
  return { stack, sources };
}

describe("rerun", () => {
  it("fires failed runs again once each, on the version that ran, and refuses what it cannot", async ({
    fx,
  }) => {
    const { stack, sources } = await failedRunsOnV1(fx, FAILING_RUNS, 4);
    const { errand } = stack;
    try {
      const unknown = `${sources[0]!.slice(0, -16)}${"0".repeat(16)}`;
      const first = await errand.rerun({ runs: [...sources, unknown] });
      expect(first).toMatchObject({ total: FAILING_RUNS + 1, succeeded: FAILING_RUNS, failed: 1 });
      expect(first.results.at(-1)).toMatchObject({
        sourceRunId: unknown,
        ok: false,
        error: { code: "not_found" },
      });
      const reruns = first.results.slice(0, FAILING_RUNS);
      expect(reruns.map((item) => item.sourceRunId)).toEqual(sources);
      for (const item of reruns) {
        const queued = queuedOf(await errand.store.readLog(item.runId!));
        expect(queued).toMatchObject({
          agent: TEST_AGENTS.structured,
          agentVersion: "v1",
          metadata: { batch: "nightly", [RERUN_OF_KEY]: item.sourceRunId },
          outputSchema: expect.any(Object),
        });
        expect(queued.parentRunId).toBeUndefined();
      }

      // The same call made again (a retry after a lost answer) fires nothing twice.
      const again = await errand.rerun({ runs: sources });
      expect(again.results.map((item) => item.runId)).toEqual(reruns.map((item) => item.runId));
      expect(again.results.every((item) => item.deduplicated === true)).toBe(true);

      // A version with no live worker is refused run by run, nothing fired.
      const onV2 = await errand.rerun({ runs: sources.slice(0, 2), version: "v2" });
      expect(onV2.failed).toBe(2);
      expect(onV2.results[0]).toMatchObject({
        ok: false,
        error: { code: "agent_version_unavailable" },
      });

      // A filter goes through the runs it matches a page at a time.
      const reRerunOf = new Set<string>();
      let cursor: string | undefined;
      do {
        const page = await errand.rerun({
          filter: { status: "failed", agent: TEST_AGENTS.structured },
          limit: 4,
          version: "newest",
          idempotencyKey: "the filter's",
          ...(cursor === undefined ? {} : { cursor }),
        });
        expect(page.results.length).toBeLessThanOrEqual(4);
        for (const item of page.results) reRerunOf.add(item.sourceRunId);
        cursor = page.hasMore ? page.nextCursor : undefined;
      } while (cursor !== undefined);
      expect([...reRerunOf].filter((runId) => sources.includes(runId)).sort()).toEqual(
        [...sources].sort(),
      );
    } finally {
      await stack.stop();
    }
    // With the v1 worker gone, no run can be re-run on the version that ran.
    const client = createErrand({
      connection: fx.server.url,
      prefix: fx.prefix,
      logger: createLogger({ level: "silent" }),
    });
    try {
      const [source] = (await client.list({ status: "failed", limit: 1 })).items;
      const refused = await client.rerun({ runs: [source!.runId] });
      expect(refused.results[0]).toMatchObject({
        ok: false,
        error: { code: "agent_version_unavailable" },
        retryable: true,
      });
    } finally {
      await client.close();
    }
  });

  it("re-runs 120 failed runs in calls of at most MAX_RERUN, each exactly once when every call is made twice", async ({
    fx,
  }) => {
    const { stack, sources } = await failedRunsOnV1(fx, MANY_FAILING_RUNS, 8);
    const { errand } = stack;
    try {
      const newRunOf = new Map<string, string>();
      for (let start = 0; start < sources.length; start += MAX_RERUN) {
        const runs = sources.slice(start, start + MAX_RERUN);
        const first = await errand.rerun({ runs });
        // The same call again, as after a lost answer: the same runs, none fired twice.
        const retried = await errand.rerun({ runs });
        expect(first.succeeded).toBe(runs.length);
        expect(retried.results.map((item) => item.runId)).toEqual(
          first.results.map((item) => item.runId),
        );
        expect(retried.results.every((item) => item.deduplicated === true)).toBe(true);
        for (const item of first.results) newRunOf.set(item.sourceRunId, item.runId!);
      }
      expect(newRunOf.size).toBe(MANY_FAILING_RUNS);
      expect(new Set(newRunOf.values()).size).toBe(MANY_FAILING_RUNS);
      for (const [source, runId] of newRunOf) {
        expect(queuedOf(await errand.store.readLog(runId))).toMatchObject({
          agentVersion: "v1",
          metadata: { [RERUN_OF_KEY]: source },
        });
      }
      // Counted over every run of the agent: each source was re-run exactly once.
      const timesRerun = new Map<string, number>();
      const listed = await errand.list({ agent: TEST_AGENTS.structured, limit: 1_000 });
      for (const run of listed.items) {
        const source = queuedOf(await errand.store.readLog(run.runId)).metadata[RERUN_OF_KEY];
        if (source !== undefined && newRunOf.has(source)) {
          timesRerun.set(source, (timesRerun.get(source) ?? 0) + 1);
        }
      }
      expect(timesRerun.size).toBe(MANY_FAILING_RUNS);
      expect([...timesRerun.values()].every((times) => times === 1)).toBe(true);
    } finally {
      await stack.stop();
    }
  });

  it("refuses a call that names no runs, both runs and a filter, or too many", async ({ fx }) => {
    const { errand } = fx;
    await expect(errand.rerun({})).rejects.toMatchObject({ code: "invalid_spec" });
    await expect(
      errand.rerun({ runs: ["R1"], filter: { status: "failed" } }),
    ).rejects.toMatchObject({ code: "invalid_spec" });
    await expect(
      errand.rerun({ runs: Array.from({ length: 101 }, (_, i) => `R${i}`) }),
    ).rejects.toMatchObject({ code: "invalid_spec" });
    await expect(errand.rerun({ filter: { status: "failed" }, limit: 0 })).rejects.toMatchObject({
      code: "invalid_spec",
    });
  });
});
