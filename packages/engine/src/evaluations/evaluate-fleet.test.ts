/**
 * A candidate that live workers run: the recorded runs are made by a worker
 * of the forecaster's `v1`, and the candidate is the `v2` version a second
 * worker runs. Each case is a real run on the fleet, marked as a case of
 * the evaluation, whose `lookup` calls its worker answers from the recorded
 * run's log: the tool's counter in Redis proves its handler ran 0 times on
 * either worker. A version no live worker runs is refused before anything
 * is written. A saved run set gives the same cases each time it is
 * evaluated, and the cases' own runs are never taken as recorded runs. A
 * `v3` that makes a call no recorded run made gets the refusal on its
 * worker, and the case lists the unrecorded call.
 */
import type { RunEventOf } from "@errand/core";
import { agentVersion } from "@errand/runtime";
import { type FakeOpenAI, startFakeOpenAI } from "@errand/testing";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { TEST_SHARDS } from "../collector/test-support/redis-fixture.js";
import { redisTest } from "../test-support/engine-test.js";
import { type ErrandStack, startErrandStack } from "../test-support/errand-stack.js";
import { captureLogs } from "../test-support/log-capture.js";
import { createWorker, type ErrandWorker } from "../worker/create-worker.js";
import type { Evaluation } from "./evaluation-record.js";
import {
  forecaster,
  forecastScript,
  lookupCounter,
  V1_INSTRUCTIONS,
  V2_INSTRUCTIONS,
  V3_INSTRUCTIONS,
} from "./test-support/forecast-fixture.js";

const it = redisTest;
const RUNS = 8;

let fake: FakeOpenAI;
let stack: ErrandStack;
let candidateWorker: ErrandWorker;
let unrecordedWorker: ErrandWorker | undefined;
let prefix: string;
let runIds: string[];
let v2: string;
let shared: Parameters<typeof createWorker>[0];

beforeAll(async () => {
  fake = await startFakeOpenAI({ scriptFor: forecastScript });
});

afterAll(async () => {
  await unrecordedWorker?.close();
  await candidateWorker?.close();
  await stack?.stop();
  await fake?.close();
});

function fireWeekly(from: number, count: number) {
  return stack.errand.fireMany(
    Array.from({ length: count }, (_, k) => ({
      agent: "forecaster",
      input: { city: `city-${from + k}`, n: from + k },
      metadata: { batch: "weekly" },
    })),
  );
}

it.beforeAll(async ({ engineRedis }) => {
  prefix = engineRedis.prefixed("evaluate-fleet").prefix;
  shared = {
    connection: engineRedis.url,
    prefix,
    shards: TEST_SHARDS,
    logger: captureLogs().logger,
    agents: [],
  };
  const recorded = forecaster(fake, engineRedis.redis, prefix, V1_INSTRUCTIONS);
  stack = await startErrandStack({ ...shared, worker: { agents: [recorded], concurrency: 8 } });
  const fired = await fireWeekly(0, RUNS);
  runIds = fired.results.map((r) => r.runId!);
  const settled = await stack.errand.collect(runIds, { waitMs: 60_000, limit: RUNS });
  expect(settled.succeeded).toBe(RUNS);
  const candidate = forecaster(fake, engineRedis.redis, prefix, V2_INSTRUCTIONS);
  v2 = agentVersion(candidate);
  candidateWorker = await createWorker({ ...shared, agents: [candidate], concurrency: 8 });
});

describe("a candidate version that live workers run", () => {
  let evaluation: Evaluation;

  it("is refused with agent_version_unavailable when no worker of it is live, nothing written", async ({
    engineRedis,
  }) => {
    const runsBefore = await stack.errand.list({ limit: 100 });
    await expect(
      stack.errand.evaluate({
        runs: runIds,
        agent: { agent: "forecaster", version: "no-such-version" },
      }),
    ).rejects.toMatchObject({ code: "agent_version_unavailable" });
    expect((await stack.errand.evaluations.list()).items).toHaveLength(0);
    expect(await engineRedis.redis.keys(`${prefix}:evaluation*`)).toEqual([]);
    expect(await stack.errand.list({ limit: 100 })).toEqual(runsBefore);
  });

  it("evaluates a saved set on the fleet, every tool call answered from the log", async ({
    engineRedis,
  }) => {
    const { redis } = engineRedis;
    const set = await stack.errand.evaluations.sets.save({
      name: "weekly",
      runs: { agent: "forecaster", metadata: { batch: "weekly" } },
    });
    expect([...set.runIds].sort()).toEqual([...runIds].sort());
    expect(Number(await redis.get(lookupCounter(prefix)))).toBe(RUNS);
    evaluation = await stack.errand.evaluate({
      runs: { set: "weekly" },
      agent: { agent: "forecaster", version: v2 },
    });
    expect(Number(await redis.get(lookupCounter(prefix)))).toBe(RUNS);
    expect(evaluation.status).toBe("finished");
    expect(evaluation.candidate).toEqual({ agent: "forecaster", version: v2, runsOn: "fleet" });
    expect(evaluation.runs).toEqual({ set: "weekly" });
    expect(evaluation.runIds).toEqual(set.runIds);
    expect(evaluation.totals).toMatchObject({ cases: RUNS, changed: RUNS / 2, failed: 0 });
    const answered = evaluation.cases.flatMap((c) =>
      c.toolCalls.candidate.map((t) => t.answeredFrom),
    );
    expect(answered).toEqual(Array(RUNS).fill("log"));
    expect(await redis.keys(`${prefix}:evaluation-calls:*`)).toEqual([]);
  });

  it("fires each case as a run of the candidate version, marked as a case of the evaluation", async () => {
    const listed = await stack.errand.list({ agent: "forecaster", limit: 100 });
    const cases = listed.items.filter((run) => !runIds.includes(run.runId));
    expect(cases).toHaveLength(RUNS);
    for (const run of cases) {
      const log = await stack.errand.store.readLog(run.runId);
      const queued = log[0] as RunEventOf<"run-queued">;
      expect(queued.data.evaluation).toEqual({
        evaluationId: evaluation.evaluationId,
        recordedRunId: queued.data.metadata.evaluationOf,
        tools: "recorded",
        onUnrecorded: "refuse",
      });
      expect(runIds).toContain(queued.data.metadata.evaluationOf);
      const started = log.find((e) => e.type === "run-started") as RunEventOf<"run-started">;
      expect(started.data.agentVersion).toBe(v2);
    }
  });

  it("takes the same cases from a saved set again, and never a case's run as a recorded run", async () => {
    const more = await fireWeekly(RUNS, 3);
    const moreIds = more.results.map((r) => r.runId!);
    expect((await stack.errand.collect(moreIds, { waitMs: 60_000 })).succeeded).toBe(3);
    const again = await stack.errand.evaluate({
      runs: { set: "weekly" },
      agent: { agent: "forecaster" },
    });
    expect(again.candidate.version).toBe(v2);
    expect(again.runIds).toEqual(evaluation.runIds);
    expect(again.cases.map((c) => c.runId).sort()).toEqual(
      evaluation.cases.map((c) => c.runId).sort(),
    );
    const wider = await stack.errand.evaluations.sets.save({
      name: "weekly-now",
      runs: { agent: "forecaster", metadata: { batch: "weekly" } },
    });
    expect([...wider.runIds].sort()).toEqual([...runIds, ...moreIds].sort());
    await expect(
      stack.errand.evaluations.sets.save({ name: "weekly", runs: moreIds }),
    ).rejects.toMatchObject({ code: "invalid_spec" });
    expect((await stack.errand.evaluations.sets.list()).map((s) => s.name)).toEqual([
      "weekly",
      "weekly-now",
    ]);
  });

  it("refuses on the worker a call no recorded run made, and lists it on its case", async ({
    engineRedis,
  }) => {
    const { redis } = engineRedis;
    const v3 = forecaster(fake, redis, prefix, V3_INSTRUCTIONS);
    unrecordedWorker = await createWorker({ ...shared, agents: [v3] });
    const some = runIds.slice(0, 2);
    const lookups = Number(await redis.get(lookupCounter(prefix)));
    const evaluated = await stack.errand.evaluate({
      runs: some,
      agent: { agent: "forecaster", version: agentVersion(v3) },
    });
    expect(Number(await redis.get(lookupCounter(prefix)))).toBe(lookups);
    expect(evaluated.totals).toMatchObject({ cases: 2, unrecordedCalls: 2, failed: 0 });
    for (const c of evaluated.cases) {
      const city = (c.toolCalls.original[0]!.args as { city: string }).city;
      expect(c.unrecordedCalls).toEqual([
        { tool: "lookup", args: { city: `${city} tomorrow` }, policy: "refuse" },
      ]);
      expect(c.toolCalls.candidate[0]).toMatchObject({ answeredFrom: "refused", ok: false });
      expect(c.toolCalls.candidate[0]!.error).toMatch(/^unrecorded_call: lookup/);
    }
  });
});
