/**
 * A 429 pauses its own provider key, fleet-wide, and no other. Agents run
 * through the real `openai` client against two fake OpenAI servers, so each
 * server is a provider key of its own. One worker runs `on-busy`; another
 * runs `also-on-busy` (the same server and key) and `on-calm` (the other
 * server). The busy server answers its first request (the first worker's)
 * with 429 (`retry-after: 8`): the second worker, which never saw it, waits
 * that pause out for its runs on the busy key, while its runs on the calm
 * key go on and finish during the pause.
 */
import { defineAgent, openaiModel } from "@errand/runtime";
import { type FakeOpenAI, startFakeOpenAI } from "@errand/testing";
import { afterAll, expect } from "vitest";
import { createLogger } from "../logger.js";
import type { EngineFixture } from "../test-support/engine-fixture.js";
import { engineTest } from "../test-support/engine-test.js";
import { createWorker, type ErrandWorker } from "../worker/create-worker.js";

const it = engineTest("provider-key-pauses");

/** The `retry-after` of the 429, in seconds: how long the first provider key is paused. */
const PAUSE_SECONDS = 8;

/** When each server received each request, in order across both servers. */
const arrivals: { server: "busy" | "calm"; at: number }[] = [];

let busy: FakeOpenAI;
let calm: FakeOpenAI;
const workers: ErrandWorker[] = [];

it.beforeAll(async ({ fx }) => {
  busy = await startFakeOpenAI({
    scripts: { "busy-model": [{ say: "busy, then done" }] },
    intercept() {
      arrivals.push({ server: "busy", at: Date.now() });
      if (arrivals.filter((arrival) => arrival.server === "busy").length > 1) return undefined;
      return {
        status: 429,
        headers: { "retry-after": String(PAUSE_SECONDS) },
        body: { error: { message: "rate limited", type: "rate_limit_error" } },
      };
    },
  });
  calm = await startFakeOpenAI({
    scripts: { "calm-model": [{ say: "calm" }] },
    intercept() {
      arrivals.push({ server: "calm", at: Date.now() });
      return undefined;
    },
  });
  const onBusy = (name: string) =>
    defineAgent({
      name,
      instructions: "Answer.",
      model: openaiModel({ baseURL: busy.baseURL, apiKey: "busy-key", model: "busy-model" }),
    });
  const onCalm = defineAgent({
    name: "on-calm",
    instructions: "Answer.",
    model: openaiModel({ baseURL: calm.baseURL, apiKey: "calm-key", model: "calm-model" }),
  });
  for (const agents of [[onBusy("on-busy")], [onBusy("also-on-busy"), onCalm]]) {
    workers.push(
      await createWorker({
        connection: fx.server.url,
        prefix: fx.prefix,
        agents,
        concurrency: 8,
        flowControl: {},
        logger: createLogger({ level: "silent" }),
      }),
    );
  }
});
afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.close({ graceMs: 1_000 })));
  await busy?.close();
  await calm?.close();
});

/** The provider keys paused now, as their pause keys name them. */
async function pausedKeys(fx: EngineFixture): Promise<string[]> {
  return fx.redis.keys(`${fx.prefix}:{flow}:pause:*`);
}

async function finished(fx: EngineFixture, runId: string) {
  const events = await fx.waitForEvent(runId);
  return events.at(-1)?.type;
}

it("pauses the provider key that answered 429 for the whole fleet, and not the other", async ({
  fx,
}) => {
  const first = await fx.errand.fire({ agent: "on-busy", input: "first" });
  let paused: string[] = [];
  while (paused.length === 0) paused = await pausedKeys(fx);
  expect(paused).toHaveLength(1);
  expect(paused[0]).toContain(busy.baseURL);

  const onBusy = await Promise.all(
    [1, 2, 3, 4].map((index) =>
      fx.errand.fire({ agent: "also-on-busy", input: `during ${index}` }),
    ),
  );
  const onCalm = await Promise.all(
    [1, 2, 3, 4].map((index) => fx.errand.fire({ agent: "on-calm", input: `calm ${index}` })),
  );
  for (const { runId } of onCalm) expect(await finished(fx, runId)).toBe("finished");
  // The calm provider was never paused, and its runs were answered while the busy one stayed paused.
  expect((await pausedKeys(fx)).some((key) => key.includes(calm.baseURL))).toBe(false);
  for (const { runId } of [first, ...onBusy]) expect(await finished(fx, runId)).toBe("finished");

  const busyArrivals = arrivals.filter((arrival) => arrival.server === "busy");
  const calmArrivals = arrivals.filter((arrival) => arrival.server === "calm");
  // One 429, then the five runs' requests, none of them before the pause ran out.
  expect(busyArrivals).toHaveLength(6);
  expect(calmArrivals).toHaveLength(4);
  const storm = busyArrivals[0]!.at;
  for (const later of busyArrivals.slice(1)) {
    expect(later.at - storm).toBeGreaterThanOrEqual((PAUSE_SECONDS - 1) * 1_000);
  }
  // Every calm request came before any busy request after the 429: the calm key did not wait.
  const firstResumed = Math.min(...busyArrivals.slice(1).map((arrival) => arrival.at));
  for (const arrival of calmArrivals) expect(arrival.at).toBeLessThan(firstResumed);
  // The first worker met the 429; the second, which took every run of also-on-busy, honoured its pause.
  const [firstStart, ...laterStarts] = await Promise.all(
    [first, ...onBusy].map(async ({ runId }) =>
      (await fx.errand.store.readLog(runId)).flatMap((event) =>
        event.type === "run-started" ? [event.data.workerId] : [],
      ),
    ),
  );
  expect(new Set(laterStarts.flat()).size).toBe(1);
  expect(laterStarts.flat()).not.toContain(firstStart?.[0]);
}, 120_000);
