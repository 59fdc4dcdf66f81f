import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { isTerminalEventType } from "@errand/core";
import { createErrand, engineKeys } from "@errand/engine";
import { type RedisServer, startRedis, uniqueKeyPrefix, waitUntil } from "@errand/testing";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURE_AGENTS, fixtureQueue, spawnErrand } from "../test-support/processes.js";
import { runErrand } from "../test-support/run-errand.js";

const prefix = uniqueKeyPrefix("cli-worker");
const TUNED_AGENTS = fileURLToPath(new URL("../test-support/tuned-agents.mjs", import.meta.url));
let server: RedisServer;
let redis: Redis;

beforeAll(async () => {
  server = await startRedis({ maxmemoryPolicy: "noeviction" });
  redis = new Redis(server.url);
});
afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
});

describe("errand worker and errand collector", () => {
  it("announce themselves, and exit 0 on SIGTERM leaving no heartbeat behind", async () => {
    const env = { REDIS_URL: server.url };
    const worker = await spawnErrand(
      ["worker", "--agents", FIXTURE_AGENTS, "--prefix", prefix],
      env,
      "worker ready",
    );
    const collector = await spawnErrand(["collector", "--prefix", prefix], env, "collector ready");
    expect(await redis.scard(engineKeys(prefix).workers)).toBe(1);
    expect(await redis.hexists(engineKeys(prefix).queueRegistry, fixtureQueue(prefix))).toBe(1);
    expect(await worker.stop()).toBe(0);
    expect(await collector.stop()).toBe(0);
    expect(await redis.scard(engineKeys(prefix).workers)).toBe(0);
  });

  it("refuses an agents module that exports no agent, or cannot be loaded, with exit 2", async () => {
    const dir = await mkdtemp(join(tmpdir(), "errand-cli-agents-"));
    try {
      await writeFile(join(dir, "none.mjs"), "export const answer = 42;\n");
      const env = { REDIS_URL: server.url };
      const none = await runErrand(["worker", "--agents", "none.mjs", "--prefix", prefix], {
        env,
        cwd: dir,
      });
      expect(none.code).toBe(2);
      expect(none.stderr).toBe(
        "errand: --agents: none.mjs exports no agent; export what defineAgent returns (or an array of them)\n",
      );
      const missing = await runErrand(["worker", "--agents", "missing.mjs", "--prefix", prefix], {
        env,
        cwd: dir,
      });
      expect(missing.code).toBe(2);
      expect(missing.stderr).toMatch(/^errand: --agents: cannot load missing\.mjs: /);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("names the file and line of a syntax error in an agents module, with exit 2", async () => {
    const dir = await mkdtemp(join(tmpdir(), "errand-cli-agents-"));
    const broken =
      'import { defineAgent } from "@errand/runtime";\n\nexport const a = {\n  name: "a",\n}};\n';
    try {
      await writeFile(join(dir, "agents.mjs"), broken);
      await writeFile(
        join(dir, "agents.cjs"),
        'const { defineAgent } = require("@errand/runtime");\n\nmodule.exports = {\n  a: 1,\n}};\n',
      );
      await writeFile(join(dir, "imports-broken.mjs"), 'export * from "./agents.mjs";\n');
      const env = { REDIS_URL: server.url };
      const worker = (file: string) =>
        runErrand(["worker", "--agents", file, "--prefix", prefix], { env, cwd: dir });
      for (const file of ["agents.mjs", "agents.cjs"]) {
        const refused = await worker(file);
        expect(refused.code, file).toBe(2);
        expect(refused.stderr, file).toBe(`errand: ${file}:5: SyntaxError: Unexpected token '}'\n`);
      }
      // errand up loads the module first too, before it looks for a Redis.
      const up = await runErrand(["up", "--agents", "./agents.mjs", "--no-dashboard"], {
        cwd: dir,
      });
      expect(up.code).toBe(2);
      expect(up.stderr).toBe("errand: agents.mjs:5: SyntaxError: Unexpected token '}'\n");
      // In a module it imports, the error is named without a place.
      const imported = await worker("imports-broken.mjs");
      expect(imported.code).toBe(2);
      expect(imported.stderr).toBe(
        "errand: --agents: cannot load imports-broken.mjs: Unexpected token '}'\n",
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("refuses a bad --flow-control or ERRAND_FLOW_CONTROL with exit 2, naming what is wrong", async () => {
    const worker = (flowControl: string[], env: Record<string, string> = {}) =>
      runErrand(["worker", "--agents", FIXTURE_AGENTS, "--prefix", prefix, ...flowControl], {
        env: { REDIS_URL: server.url, ...env },
      });
    const bad = await worker([
      "--flow-control",
      JSON.stringify({
        agentConcurrency: { "scripted-city": 0 },
        keyConcurrency: [{ key: "tenant-*", limit: 1.5 }],
        providerLimits: { "*": { requestsPerMinute: -5 } },
      }),
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^errand: --flow-control: agentConcurrency\.scripted-city: .*>=1/);
    expect(bad.stderr).toContain("; keyConcurrency.0.limit: ");
    expect(bad.stderr).toContain("; providerLimits.*.requestsPerMinute: ");
    const misspelt = await worker([], { ERRAND_FLOW_CONTROL: '{"agentConcurency":{"a":1}}' });
    expect(misspelt.code).toBe(2);
    expect(misspelt.stderr).toMatch(/^errand: ERRAND_FLOW_CONTROL: .*"agentConcurency"/);
    // The flag wins over the variable.
    const notJson = await worker(["--flow-control", "{agentConcurrency"], {
      ERRAND_FLOW_CONTROL: "{}",
    });
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toMatch(/^errand: --flow-control is not valid JSON: /);
  });

  it("enforces its flow control (ERRAND_FLOW_CONTROL here): an agent limited to 1 runs one run at a time on 4 slots", async () => {
    const flowPrefix = uniqueKeyPrefix("cli-worker-flow");
    const env = { REDIS_URL: server.url };
    const flowControl = '{"agentConcurrency":{"scripted-city":1},"recheckMs":100}';
    const worker = await spawnErrand(
      ["worker", "--agents", FIXTURE_AGENTS, "--prefix", flowPrefix, "--concurrency", "4"],
      { ...env, ERRAND_FLOW_CONTROL: flowControl },
      "worker ready",
    );
    const collector = await spawnErrand(
      ["collector", "--prefix", flowPrefix],
      env,
      "collector ready",
    );
    const errand = createErrand({ connection: server.url, prefix: flowPrefix });
    try {
      const fired = await errand.fireMany(
        [1, 2, 3].map((n) => ({
          agent: "scripted-city",
          input: { script: [{ sleepMs: 300, say: `run ${n}` }] },
        })),
      );
      const runIds = fired.results.map((result) => result.runId!);
      const results = await Promise.all(
        runIds.map((runId) => errand.result(runId, { waitMs: 60_000 })),
      );
      expect(results.map((result) => result?.status)).toEqual([
        "succeeded",
        "succeeded",
        "succeeded",
      ]);
      // From the logs: each run started once the one before it had ended.
      const ran = await Promise.all(
        runIds.map(async (runId) => {
          const events = await errand.store.readLog(runId);
          const started = events.find((event) => event.type === "run-started");
          const ended = events.find((event) => isTerminalEventType(event.type));
          return { startedAt: Date.parse(started!.at), endedAt: Date.parse(ended!.at) };
        }),
      );
      ran.sort((a, b) => a.startedAt - b.startedAt);
      for (let index = 1; index < ran.length; index++) {
        expect(ran[index]!.startedAt).toBeGreaterThanOrEqual(ran[index - 1]!.endedAt);
      }
    } finally {
      await errand.close();
      await worker.stop();
      await collector.stop();
    }
  });

  it("gives its runs' job locks ERRAND_LOCK_MS and its stalled checks --stalled-interval-ms, as BullMQ keeps them in Redis", async () => {
    const lockPrefix = uniqueKeyPrefix("cli-worker-locks");
    const queueKeys = `${engineKeys(lockPrefix).bullmqPrefix}:${fixtureQueue(lockPrefix)}`;
    // A minute each: the engine's defaults (5 s and 2.5 s) never leave more than 5 s on either key.
    const worker = await spawnErrand(
      [
        "worker",
        "--agents",
        FIXTURE_AGENTS,
        "--prefix",
        lockPrefix,
        "--stalled-interval-ms",
        "60000",
      ],
      { REDIS_URL: server.url, ERRAND_LOCK_MS: "60000", ERRAND_STALLED_INTERVAL_MS: "1000" },
      "worker ready",
    );
    const errand = createErrand({ connection: server.url, prefix: lockPrefix });
    try {
      await errand.fire({
        agent: "scripted-city",
        input: { script: [{ sleepMs: 60_000, say: "held" }] },
      });
      // The worker holds the run: its job's lock is in Redis.
      const lock = await waitUntil(async () => (await redis.keys(`${queueKeys}:*:lock`))[0], {
        timeoutMs: 30_000,
      });
      expect(lock, "the run's job lock").toBeDefined();
      expect(await redis.pttl(lock!)).toBeGreaterThan(5_000);
      // The flag wins over ERRAND_STALLED_INTERVAL_MS (1000).
      expect(await redis.pttl(`${queueKeys}:stalled-check`)).toBeGreaterThan(5_000);
    } finally {
      await errand.close();
      await worker.stop("SIGKILL");
    }
  });

  it("refuses a --lock-ms or --stalled-interval-ms (or its variable) that is not a whole number of ms in bounds, with exit 2", async () => {
    const worker = (options: string[], env: Record<string, string> = {}) =>
      runErrand(["worker", "--agents", FIXTURE_AGENTS, "--prefix", prefix, ...options], {
        env: { REDIS_URL: server.url, ...env },
      });
    const short = await worker(["--lock-ms", "500"]);
    expect(short.code).toBe(2);
    expect(short.stderr).toBe(
      'errand: --lock-ms (or ERRAND_LOCK_MS) must be a whole number from 1000 to 3600000, not "500"\n',
    );
    const fraction = await worker([], { ERRAND_STALLED_INTERVAL_MS: "2.5" });
    expect(fraction.code).toBe(2);
    expect(fraction.stderr).toBe(
      'errand: --stalled-interval-ms (or ERRAND_STALLED_INTERVAL_MS) must be a whole number from 100 to 3600000, not "2.5"\n',
    );
    // The flag wins over the variable.
    const zero = await worker(["--stalled-interval-ms", "0"], {
      ERRAND_STALLED_INTERVAL_MS: "2500",
    });
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain('not "0"');
  });

  it("refuses with exit 2 an agent whose model cannot honour its model settings, naming the setting", async () => {
    const refused = await runErrand(["worker", "--agents", TUNED_AGENTS, "--prefix", prefix], {
      env: { REDIS_URL: server.url, OPENAI_BASE_URL: "http://127.0.0.1:9/v1", OPENAI_API_KEY: "" },
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      "agent summarizer: the Chat Completions API has no reasoning summaries (reasoning.summary)",
    );
  });
});
