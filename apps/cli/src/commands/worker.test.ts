import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { engineKeys } from "@errand/engine";
import { type RedisServer, startRedis, uniqueKeyPrefix } from "@errand/testing";
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
