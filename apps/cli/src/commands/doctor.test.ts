import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RedisServer, startRedis, uniqueKeyPrefix } from "@errand/testing";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DoctorCheck } from "../doctor/check.js";
import { recordingInput, SCRIPTED_CITY, writeCitySchema } from "../test-support/city.js";
import { printedRedisUrl } from "../test-support/private-redis.js";
import { fixtureQueue, spawnErrand, startErrandProcesses } from "../test-support/processes.js";
import { runErrand } from "../test-support/run-errand.js";

interface Report {
  ok: boolean;
  checks: DoctorCheck[];
}

async function doctor(url: string, prefix: string, json = true) {
  const outcome = await runErrand(["doctor", "--prefix", prefix, ...(json ? ["--json"] : [])], {
    env: { REDIS_URL: url },
  });
  return { ...outcome, report: json ? (JSON.parse(outcome.stdout) as Report) : undefined };
}

function check(report: Report | undefined, name: string): DoctorCheck | undefined {
  return report?.checks.find((c) => c.name === name);
}

describe("errand doctor on a Redis that evicts keys", () => {
  let server: RedisServer;
  const prefix = uniqueKeyPrefix("cli-doctor-lru");
  beforeAll(async () => {
    server = await startRedis({ maxmemoryPolicy: "allkeys-lru" });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("reports maxmemory-policy allkeys-lru as a problem with its fix, and exits 1", async () => {
    const { code, report } = await doctor(server.url, prefix);
    expect(code).toBe(1);
    expect(report?.ok).toBe(false);
    const policy = check(report, "maxmemory-policy");
    expect(policy?.ok).toBe(false);
    expect(policy?.detail).toContain("allkeys-lru");
    expect(policy?.fix).toContain("CONFIG SET maxmemory-policy noeviction");
    expect(check(report, "redis reachable")?.ok).toBe(true);
    expect(check(report, "redis version")?.ok).toBe(true);
  });

  it("prints the problem and its fix for people", async () => {
    const { code, stdout } = await doctor(server.url, prefix, false);
    expect(code).toBe(1);
    expect(stdout).toMatch(/PROBLEM +maxmemory-policy +maxmemory-policy is allkeys-lru/);
    expect(stdout).toMatch(/fix: set maxmemory-policy noeviction/);
    expect(stdout).toMatch(/\d+ problems? found\.\n$/);
  });

  it("reports persistence off, and no worker, each with its fix", async () => {
    const { report } = await doctor(server.url, prefix);
    expect(check(report, "persistence")).toMatchObject({
      ok: false,
      fix: expect.stringContaining("appendonly yes"),
    });
    expect(check(report, "worker heartbeats")).toMatchObject({
      ok: false,
      fix: expect.stringContaining("errand worker --agents"),
    });
  });
});

describe("errand doctor on a Redis that is full", () => {
  let server: RedisServer;
  let admin: Redis;
  const prefix = uniqueKeyPrefix("cli-doctor-full");
  beforeAll(async () => {
    server = await startRedis({ maxmemoryPolicy: "noeviction" });
    admin = new Redis(server.url);
    // 2 MB of data, then a limit below it: Redis refuses every write from then on.
    for (let n = 0; n < 20; n++) await admin.set(`${prefix}:ballast:${n}`, "x".repeat(100_000));
    await admin.config("SET", "maxmemory", "1mb");
    await expect(admin.set(`${prefix}:one-more`, "x")).rejects.toThrow(/^OOM /);
  });
  afterAll(async () => {
    admin?.disconnect();
    await server?.stop();
  });

  it("finds Redis full and refusing writes, says how to fix it, and exits 1", async () => {
    const { code, report } = await doctor(server.url, prefix);
    expect(code).toBe(1);
    expect(check(report, "memory")).toMatchObject({
      ok: false,
      detail: expect.stringMatching(
        /used of maxmemory 1\.00 MiB \(\d+%\): Redis is full and refuses every write/,
      ),
      fix: expect.stringContaining("CONFIG SET maxmemory"),
    });
    expect(check(report, "writes")).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/^Redis is out of memory and refuses writes: OOM /),
      fix: expect.stringContaining("CONFIG SET maxmemory"),
    });
    const text = await doctor(server.url, prefix, false);
    expect(text.stdout).not.toContain("No problems found.");
  });
});

describe("errand doctor on a deployment that is fit", () => {
  let server: RedisServer;
  let processes: Awaited<ReturnType<typeof startErrandProcesses>> | undefined;
  let dir: string;
  const prefix = uniqueKeyPrefix("cli-doctor-fit");

  beforeAll(async () => {
    server = await startRedis({ maxmemoryPolicy: "noeviction", appendonly: true });
    processes = await startErrandProcesses(server.url, prefix);
    dir = await mkdtemp(join(tmpdir(), "errand-cli-doctor-"));
    const fired = await runErrand(
      [
        "fire",
        SCRIPTED_CITY,
        "--input",
        recordingInput("Oslo", 709_000),
        "--schema",
        await writeCitySchema(dir),
        "--wait",
        "--prefix",
        prefix,
      ],
      { env: { REDIS_URL: server.url } },
    );
    expect(fired.code).toBe(0);
  });
  afterAll(async () => {
    await processes?.stop();
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("passes every check and exits 0", async () => {
    const { code, report } = await doctor(server.url, prefix);
    expect(report?.checks.filter((c) => !c.ok)).toEqual([]);
    expect(report?.checks.map((c) => c.name)).toEqual([
      "redis reachable",
      "redis version",
      "maxmemory-policy",
      "memory",
      "writes",
      "persistence",
      "cluster hash-tag co-location",
      "worker heartbeats",
      "runs waiting for a worker",
      "queue shards taken",
      "agent versions",
      "collectors",
      "model",
    ]);
    expect(report?.ok).toBe(true);
    expect(code).toBe(0);
    expect(check(report, "worker heartbeats")?.detail).toContain(SCRIPTED_CITY);
    expect(check(report, "agent versions")?.detail).toMatch(
      new RegExp(
        `${SCRIPTED_CITY} h[0-9a-f]{12}: live, 0 runs waiting — Records a city and its population\\.`,
      ),
    );
  });

  it("reports the missing worker once it stopped", async () => {
    const code = await processes?.worker.stop();
    expect(code).toBe(0);
    const { report } = await doctor(server.url, prefix);
    expect(check(report, "worker heartbeats")?.ok).toBe(false);
    expect(check(report, "collectors")?.ok).toBe(true);
    expect(check(report, "runs waiting for a worker")?.ok).toBe(true);
  });

  it("names the agent whose runs wait in a queue without a live worker, and since when", async () => {
    const fired = await runErrand(
      [
        "fire",
        SCRIPTED_CITY,
        "--input",
        recordingInput("Rome", 2_750_000),
        "--count",
        "3",
        "--prefix",
        prefix,
      ],
      { env: { REDIS_URL: server.url } },
    );
    expect(fired.code).toBe(0);
    const { code, report } = await doctor(server.url, prefix);
    expect(code).toBe(1);
    const waiting = check(report, "runs waiting for a worker");
    expect(waiting?.ok).toBe(false);
    expect(waiting?.detail).toMatch(
      new RegExp(
        `^3 runs of ${SCRIPTED_CITY} waiting in ${fixtureQueue(prefix).replaceAll(".", "\\.")}, no live worker since \\d\\d:\\d\\d:\\d\\d UTC$`,
      ),
    );
    expect(waiting?.fix).toContain(`start a worker that runs ${SCRIPTED_CITY}`);
    const versions = check(report, "agent versions");
    expect(versions?.ok).toBe(false);
    expect(versions?.detail).toMatch(
      new RegExp(`${SCRIPTED_CITY} (h[0-9a-f]{12}): no live worker, 3 runs waiting`),
    );
    expect(versions?.fix).toContain("agent_version_unavailable");
  });
});

describe("errand doctor without a Redis", () => {
  it("reports the unreachable server as the one problem, and exits 3", async () => {
    const { code, report } = await doctor(
      "redis://127.0.0.1:1",
      uniqueKeyPrefix("cli-doctor-none"),
    );
    expect(code).toBe(3);
    expect(report?.checks).toHaveLength(1);
    expect(report?.checks[0]).toMatchObject({ name: "redis reachable", ok: false });
    expect(report?.checks[0]?.fix).toMatch(/start Redis/);
  });

  it("says how to give one when none is given, and exits 3", async () => {
    const { code, stdout } = await runErrand(["doctor"]);
    expect(code).toBe(3);
    expect(stdout).toMatch(/PROBLEM +redis reachable +no Redis given/);
  });
});

describe("errand doctor against errand up's own private Redis", () => {
  it("passes every check while up runs, and exits 0", async () => {
    const up = await spawnErrand(["up", "--no-dashboard"], { REDIS_URL: "" }, "Ctrl-C to stop.");
    try {
      const url = printedRedisUrl(up.output());
      expect(url).toBeDefined();
      const { code, report } = await doctor(url!, "errand");
      expect(report?.checks.filter((c) => !c.ok)).toEqual([]);
      expect(check(report, "persistence")?.detail).toContain("append-only file on");
      expect(check(report, "worker heartbeats")?.detail).toContain("demo-child");
      expect(code).toBe(0);
      expect(await up.stop()).toBe(0);
    } finally {
      await up.stop();
    }
  });
});
