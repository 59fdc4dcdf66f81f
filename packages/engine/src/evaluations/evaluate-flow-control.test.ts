/**
 * A candidate in the calling process under the fleet's flow control: given
 * the workers' `flowControl`, its model takes its turns from the fleet's
 * provider keys, so a 429 pause of its provider key (set in Redis, as a
 * worker that met a 429 sets it) holds its requests until it is lifted: no
 * candidate request reaches the provider while the key is paused.
 */
import { type FakeOpenAI, startFakeOpenAI } from "@errand/testing";
import { afterAll, beforeAll, expect } from "vitest";
import { TEST_SHARDS } from "../collector/test-support/redis-fixture.js";
import { flowKeys } from "../flow-control/flow-keys.js";
import { redisTest } from "../test-support/engine-test.js";
import { type ErrandStack, startErrandStack } from "../test-support/errand-stack.js";
import { captureLogs } from "../test-support/log-capture.js";
import {
  forecaster,
  forecastScript,
  V1_INSTRUCTIONS,
  V2_INSTRUCTIONS,
} from "./test-support/forecast-fixture.js";

const it = redisTest;
const RUNS = 2;

/** Whether the pause had been lifted when each request after the recording arrived. */
const arrivals: boolean[] = [];
let recording = true;
let lifted = false;

let fake: FakeOpenAI;
let stack: ErrandStack;
let prefix: string;
let runIds: string[];

beforeAll(async () => {
  fake = await startFakeOpenAI({
    scriptFor: forecastScript,
    intercept() {
      if (!recording) arrivals.push(lifted);
      return undefined;
    },
  });
});

afterAll(async () => {
  await stack?.stop();
  await fake?.close();
});

it.beforeAll(async ({ engineRedis }) => {
  prefix = engineRedis.prefixed("evaluate-flow").prefix;
  stack = await startErrandStack({
    connection: engineRedis.url,
    prefix,
    shards: TEST_SHARDS,
    logger: captureLogs().logger,
    worker: { agents: [forecaster(fake, engineRedis.redis, prefix, V1_INSTRUCTIONS)] },
  });
  const fired = await stack.errand.fireMany(
    Array.from({ length: RUNS }, (_, n) => ({ agent: "forecaster", input: { city: `c${n}`, n } })),
  );
  runIds = fired.results.map((r) => r.runId!);
  expect((await stack.errand.collect(runIds, { waitMs: 60_000 })).succeeded).toBe(RUNS);
  recording = false;
});

it("holds an in-process candidate's requests while its provider key is paused", async ({
  engineRedis,
}) => {
  const { redis } = engineRedis;
  const candidate = forecaster(fake, redis, prefix, V2_INSTRUCTIONS);
  const model = candidate.model as Exclude<typeof candidate.model, string>;
  expect(model.providerKey).toBeDefined();
  const pause = flowKeys(prefix).providerPause(model.providerKey!);
  await redis.set(pause, "1", "PX", 120_000);
  const evaluating = stack.errand.evaluate({ runs: runIds, agent: candidate, flowControl: {} });
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  expect(arrivals).toEqual([]);
  lifted = true;
  await redis.del(pause);
  const evaluation = await evaluating;
  expect(evaluation.status).toBe("finished");
  expect(evaluation.totals.cases).toBe(RUNS);
  expect(arrivals).toEqual(Array(RUNS * 2).fill(true));
});
