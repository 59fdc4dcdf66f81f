/**
 * Evaluating a candidate against 50 recorded runs: the runs are made by a
 * real worker and collector on a private Redis, their model the real
 * `openai` client against the fake OpenAI server; the candidate changes
 * the agent's instructions, which changes the answer of every even run. In
 * recorded mode the `lookup` tool never runs (its counter in Redis stays
 * where the recorded runs left it), every case is scored, the changed cases
 * come first, the totals are the sums of the cases, and the JUnit XML reads
 * back through a real JUnit parser. Then an evaluation interrupted after a
 * few cases is resumed: only the cases not yet finished ask the model.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FakeOpenAI, startFakeOpenAI } from "@errand/testing";
import { parse } from "test-results-parser";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { TEST_SHARDS } from "../collector/test-support/redis-fixture.js";
import { redisTest } from "../test-support/engine-test.js";
import { type ErrandStack, startErrandStack } from "../test-support/errand-stack.js";
import { captureLogs } from "../test-support/log-capture.js";
import type { Evaluation } from "./evaluation-record.js";
import { evaluationJUnit } from "./junit.js";
import {
  forecaster,
  forecastScript,
  lookupCounter,
  V1_INSTRUCTIONS,
  V2_INSTRUCTIONS,
} from "./test-support/forecast-fixture.js";

const it = redisTest;
const RUNS = 50;

let fake: FakeOpenAI;
let stack: ErrandStack;
let prefix: string;
let runIds: string[];
let folder: string;

beforeAll(async () => {
  fake = await startFakeOpenAI({ scriptFor: forecastScript });
  folder = mkdtempSync(join(tmpdir(), "errand-eval-"));
});

afterAll(async () => {
  await stack?.stop();
  await fake?.close();
  rmSync(folder, { recursive: true, force: true });
});

it.beforeAll(async ({ engineRedis }) => {
  prefix = engineRedis.prefixed("evaluate").prefix;
  const agent = forecaster(fake, engineRedis.redis, prefix, V1_INSTRUCTIONS);
  stack = await startErrandStack({
    connection: engineRedis.url,
    prefix,
    shards: TEST_SHARDS,
    logger: captureLogs().logger,
    worker: { agents: [agent], concurrency: 8 },
  });
  const fired = await stack.errand.fireMany(
    Array.from({ length: RUNS }, (_, n) => ({
      agent: "forecaster",
      input: { city: `city-${n}`, n },
      metadata: { batch: "weekly" },
    })),
  );
  runIds = fired.results.map((r) => r.runId!);
  const settled = await stack.errand.collect(runIds, { waitMs: 60_000, limit: RUNS });
  expect(settled.succeeded).toBe(RUNS);
});

describe("an evaluation of 50 recorded runs with new instructions", () => {
  let evaluation: Evaluation;

  it("answers every tool call from the log: the tool ran 0 times", async ({ engineRedis }) => {
    const { redis } = engineRedis;
    expect(Number(await redis.get(lookupCounter(prefix)))).toBe(RUNS);
    const candidate = forecaster(fake, redis, prefix, V2_INSTRUCTIONS);
    const progress: number[] = [];
    evaluation = await stack.errand.evaluate({
      runs: { agent: "forecaster", metadata: { batch: "weekly" }, limit: RUNS },
      agent: candidate,
      onProgress: ({ done }) => progress.push(done),
    });
    expect(Number(await redis.get(lookupCounter(prefix)))).toBe(RUNS);
    expect(evaluation.status).toBe("finished");
    expect([...evaluation.runIds].sort()).toEqual([...runIds].sort());
    expect(progress.at(-1)).toBe(RUNS);
    const answered = evaluation.cases.flatMap((c) =>
      c.toolCalls.candidate.map((t) => t.answeredFrom),
    );
    expect(answered.filter((from) => from === "log")).toHaveLength(RUNS);
    expect(answered.every((from) => from === "log")).toBe(true);
  });

  it("scores each case, lists the changed cases first, and totals the cases", () => {
    const { cases, totals } = evaluation;
    expect(cases).toHaveLength(RUNS);
    for (const c of cases) {
      expect(c.scores.map((s) => s.scorer)).toEqual([
        "output-schema-valid",
        "output-equal",
        "json-field-diff",
        "text-similarity",
      ]);
    }
    const changed = cases.filter((c) => c.changed);
    expect(changed).toHaveLength(RUNS / 2);
    expect(cases.slice(0, RUNS / 2).every((c) => c.changed)).toBe(true);
    expect(cases.slice(RUNS / 2).every((c) => !c.changed)).toBe(true);
    const first = changed[0]!;
    expect(first.diff).toEqual([
      {
        path: "$.answer",
        original: expect.stringMatching(/^sunny in city-/),
        candidate: expect.stringMatching(/^SUNNY IN CITY-/),
      },
    ]);
    expect(first.scores.find((s) => s.scorer === "output-equal")?.score).toBe(0);
    expect(first.scores.find((s) => s.scorer === "output-schema-valid")?.score).toBe(1);

    const sum = (pick: (c: (typeof cases)[number]) => number) =>
      cases.reduce((s, c) => s + pick(c), 0);
    expect(totals.cases).toBe(RUNS);
    expect(totals.changed).toBe(RUNS / 2);
    expect(totals.failed).toBe(0);
    expect(totals.candidate.tokens).toBe(sum((c) => c.candidate.tokens));
    expect(totals.candidate.steps).toBe(sum((c) => c.candidate.steps));
    expect(totals.candidate.latencyMs).toBe(sum((c) => c.candidate.latencyMs));
    expect(totals.original.tokens).toBe(sum((c) => c.original.tokens));
    expect(totals.candidate.costUsd).toBeCloseTo(
      sum((c) => c.candidate.costUsd),
      9,
    );
    expect(totals.original.costUsd).toBeCloseTo(
      sum((c) => c.original.costUsd),
      9,
    );
    expect(totals.candidate.costUsd).toBeGreaterThan(0);
    for (const name of Object.keys(totals.scores)) {
      const scores = cases.map((c) => c.scores.find((s) => s.scorer === name)!.score);
      expect(totals.scores[name]).toBeCloseTo(
        scores.reduce((s, v) => s + v, 0),
        9,
      );
    }
    expect(totals.scores["output-equal"]).toBe(RUNS / 2);
  });

  it("is kept in Redis: listed and read back whole", async () => {
    const listed = await stack.errand.evaluations.list();
    expect(listed.items.map((e) => e.evaluationId)).toContain(evaluation.evaluationId);
    const read = await stack.errand.evaluations.get(evaluation.evaluationId);
    expect(read).toEqual(evaluation);
    expect(read?.runs).toEqual({
      filter: { agent: "forecaster", metadata: { batch: "weekly" }, limit: RUNS },
    });
  });

  it("exports JUnit XML that a JUnit reader parses", () => {
    const plain = join(folder, "plain.xml");
    writeFileSync(plain, evaluationJUnit(evaluation));
    const result = parse({ type: "junit", files: [plain] });
    expect(result.total).toBe(RUNS);
    expect(result.failed).toBe(0);
    expect(result.suites[0]!.cases.map((c) => c.name).sort()).toEqual([...runIds].sort());

    const strict = join(folder, "strict.xml");
    writeFileSync(strict, evaluationJUnit(evaluation, { changedFails: true }));
    const gated = parse({ type: "junit", files: [strict] });
    expect(gated.failed).toBe(RUNS / 2);
    const failing = gated.suites[0]!.cases.filter((c) => c.status === "FAIL").map((c) => c.name);
    expect(failing.sort()).toEqual(
      evaluation.cases
        .filter((c) => c.changed)
        .map((c) => c.runId)
        .sort(),
    );
  });
});

describe("an interrupted evaluation", () => {
  it("resumes without running its finished cases again", async ({ engineRedis }) => {
    const candidate = forecaster(fake, engineRedis.redis, prefix, V2_INSTRUCTIONS);
    const stop = new AbortController();
    const some = runIds.slice(0, 10);
    const first = await stack.errand.evaluate({
      runs: some,
      agent: candidate,
      concurrency: 1,
      signal: stop.signal,
      onProgress: ({ done }) => {
        if (done === 4) stop.abort();
      },
    });
    expect(first.status).toBe("interrupted");
    expect(first.cases).toHaveLength(4);
    const asked = fake.requests.length;
    const resumed = await stack.errand.evaluate({ resume: first.evaluationId, agent: candidate });
    expect(resumed.status).toBe("finished");
    expect(resumed.cases).toHaveLength(10);
    expect(fake.requests.length - asked).toBe(6 * 2);
    for (const kept of first.cases) {
      expect(resumed.cases.find((c) => c.runId === kept.runId)).toEqual(kept);
    }
  });
});
