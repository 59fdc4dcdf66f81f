/**
 * Provider rate limits shared by the fleet. The bucket script on a real
 * Redis: requests a minute, tokens a minute, a 429's pause, each provider
 * key on its own. Then a 429 storm across two worker processes running an
 * agent through the real `openai` client against the fake OpenAI server:
 * the server answers 429 (`retry-after: 2`) to everything for two seconds
 * after the first request; the first 429 pauses the provider key for every
 * worker, so the runs fired during the storm wait it out instead of each
 * drawing a 429 of its own.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { RunEvent } from "@errand/core";
import { startFakeOpenAI } from "@errand/testing";
import { describe, expect } from "vitest";
import type { EngineFixture } from "../test-support/engine-fixture.js";
import { engineTest } from "../test-support/engine-test.js";
import { flowKeys } from "./flow-keys.js";
import { flowScripts } from "./flow-scripts.js";

const it = engineTest("flow-providers");

describe("the provider bucket script", () => {
  const take = (fx: EngineFixture, provider: string, rpm: number, tpm: number) => {
    const keys = flowKeys(fx.prefix);
    return flowScripts(fx.redis).providerRate(
      [keys.providerBucket(provider), keys.providerPause(provider)],
      ["take", rpm, tpm],
    );
  };
  const call = (
    fx: EngineFixture,
    provider: string,
    mode: string,
    rpm: number,
    tpm: number,
    amount: number,
  ) => {
    const keys = flowKeys(fx.prefix);
    return flowScripts(fx.redis).providerRate(
      [keys.providerBucket(provider), keys.providerPause(provider)],
      [mode, rpm, tpm, amount],
    );
  };

  it("lets rpm requests through, then says how long until the next", async ({ fx }) => {
    const taken = [
      await take(fx, "rpm", 3, 0),
      await take(fx, "rpm", 3, 0),
      await take(fx, "rpm", 3, 0),
    ];
    expect(taken).toEqual([0, 0, 0]);
    const waitMs = Number(await take(fx, "rpm", 3, 0));
    expect(waitMs).toBeGreaterThan(0);
    expect(waitMs).toBeLessThanOrEqual(20_000); // one request of 3 a minute comes back within 20 s
    expect(await take(fx, "another provider", 3, 0)).toBe(0);
  });

  it("holds requests back once the responses used the tokens of the minute", async ({ fx }) => {
    expect(await take(fx, "tpm", 0, 1_000)).toBe(0);
    await call(fx, "tpm", "debit", 0, 1_000, 1_500);
    const waitMs = Number(await take(fx, "tpm", 0, 1_000));
    expect(waitMs).toBeGreaterThan(0);
    expect(waitMs).toBeLessThanOrEqual(31_000); // 501 tokens at 1,000 a minute
  });

  it("pauses a provider key, keeping the longer of two pauses", async ({ fx }) => {
    await call(fx, "paused", "pause", 0, 0, 60_000);
    await call(fx, "paused", "pause", 0, 0, 1_000);
    const waitMs = Number(await take(fx, "paused", 0, 0));
    expect(waitMs).toBeGreaterThan(1_000);
    expect(waitMs).toBeLessThanOrEqual(60_000);
  });
});

/**
 * How long the fake server answers 429 after its first request, and the
 * `retry-after` it sends: long enough for both workers to take their runs
 * within it on a loaded machine.
 */
const STORM_SECONDS = 20;

/** A fake OpenAI server that answers 429 to every request for {@link STORM_SECONDS} after its first. */
async function startStormServer() {
  const storm = { until: undefined as number | undefined, refused: 0 };
  const server = await startFakeOpenAI({
    scripts: { "storm-model": [{ say: "calm again" }] },
    intercept() {
      storm.until ??= Date.now() + STORM_SECONDS * 1_000;
      if (Date.now() >= storm.until) return undefined;
      storm.refused += 1;
      return {
        status: 429,
        headers: { "retry-after": String(STORM_SECONDS) },
        body: { error: { message: "rate limited", type: "rate_limit_error" } },
      };
    },
  });
  return { server, storm };
}

/** The pause keys of providers served from `baseURL`, once there is one. */
async function pausesOf(fx: EngineFixture, baseURL: string): Promise<string[]> {
  for (;;) {
    const paused = await fx.redis.keys(`${fx.prefix}:{flow}:pause:${baseURL}#*`);
    if (paused.length > 0) return paused;
    await sleep(10);
  }
}

function startsOf(events: readonly RunEvent[]) {
  return events.flatMap((event) => (event.type === "run-started" ? [event] : []));
}

describe("a 429 storm", () => {
  it("pauses the provider key for every worker: one 429, not one per run", async ({ fx }) => {
    const { server, storm } = await startStormServer();
    try {
      const openaiAgent = { name: "stormy", model: "storm-model", baseURL: server.baseURL };
      for (const workerId of ["storm-a", "storm-b"]) {
        await fx.spawn(workerId, { concurrency: 3, flowControl: {}, openaiAgent });
      }
      const first = await fx.errand.fire({ agent: "stormy", input: "first" });
      // Its 429 paused the provider key, named by the server's base URL and a digest of the key.
      expect(await pausesOf(fx, server.baseURL)).toHaveLength(1);
      const during = await Promise.all(
        Array.from({ length: 5 }, (_, index) =>
          fx.errand.fire({ agent: "stormy", input: `during the storm ${index}` }),
        ),
      );
      const logs = await Promise.all([first, ...during].map(({ runId }) => fx.waitForEvent(runId)));

      for (const events of logs) expect(events.at(-1)?.type).toBe("finished");
      const starts = logs.flatMap(startsOf);
      // Both workers took runs while the server still answered 429 to everyone...
      expect(new Set(starts.map((start) => start.data.workerId)).size).toBe(2);
      for (const start of starts) expect(Date.parse(start.at)).toBeLessThan(storm.until!);
      // ...yet only the first request met the storm: the others waited out the shared pause.
      expect(storm.refused).toBe(1);
      expect(server.requests).toHaveLength(logs.length + 1);
    } finally {
      await fx.killWorkers();
      await server.close();
    }
  }, 180_000);
});

/** The provider key's requests a minute in the shared-bucket test: its bucket holds 6, then one comes back every 10 s. */
const SHARED_RPM = 6;

describe("requests a minute", () => {
  it("are shared by every worker: the fleet's requests past the bucket wait for its refill", async ({
    fx,
  }) => {
    const requestedAt: number[] = [];
    const server = await startFakeOpenAI({
      scripts: { "metered-model": [{ say: "metered" }] },
      intercept() {
        requestedAt.push(Date.now());
        return undefined;
      },
    });
    try {
      const openaiAgent = { name: "metered", model: "metered-model", baseURL: server.baseURL };
      const flowControl = { providerLimits: { "*": { requestsPerMinute: SHARED_RPM } } };
      for (const workerId of ["metered-a", "metered-b"]) {
        await fx.spawn(workerId, { concurrency: 4, flowControl, openaiAgent });
      }
      const runs = await Promise.all(
        Array.from({ length: SHARED_RPM + 2 }, (_, index) =>
          fx.errand.fire({ agent: "metered", input: `metered ${index}` }),
        ),
      );
      const logs = await Promise.all(runs.map(({ runId }) => fx.waitForEvent(runId)));

      for (const events of logs) expect(events.at(-1)?.type).toBe("finished");
      // Both workers ran some: with a bucket each, all 8 requests would have gone at once...
      const workers = new Set(logs.flatMap(startsOf).map((start) => start.data.workerId));
      expect(workers.size).toBe(2);
      // ...but the key's one bucket let 6 through, then one more per 10 s, whichever worker asked.
      expect(requestedAt).toHaveLength(SHARED_RPM + 2);
      const first = requestedAt[0]!;
      const sinceFirst = requestedAt.map((at) => at - first);
      // The first 6 went at once (bounded by the first refill, 10 s on, to leave room for load).
      expect(sinceFirst[SHARED_RPM - 1]).toBeLessThan(10_000);
      expect(sinceFirst[SHARED_RPM]).toBeGreaterThanOrEqual(8_000);
      expect(sinceFirst[SHARED_RPM + 1]).toBeGreaterThanOrEqual(18_000);
    } finally {
      await fx.killWorkers();
      await server.close();
    }
  }, 180_000);
});
