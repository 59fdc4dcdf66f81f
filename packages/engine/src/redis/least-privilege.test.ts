/**
 * errand runs entirely as the least-privilege ACL user of `redisAclRules`:
 * a client, a worker and a collector (with its reaper) connect as that user
 * and carry a workload through — a run whose tool result becomes a blob, a
 * cancel of a running run, a parent that spawns children and parks until
 * they settle, a run past its deadline, a run under a concurrency key's
 * fleet-wide limit (queued fairly). Nothing is refused (the server's ACL
 * LOG stays empty) and every settled run gets its retention: its log, head,
 * blobs, result and children all expire.
 */
import { randomBytes } from "node:crypto";
import { defineAgent, defineTool, scriptedModel } from "@errand/runtime";
import { type RedisServer, uniqueKeyPrefix } from "@errand/testing";
import { Redis } from "ioredis";
import { afterAll, describe, expect } from "vitest";
import { z } from "zod";
import type { Errand } from "../client/client.js";
import { parentTools } from "../parents/parent-tools.js";
import { redisTest as it } from "../test-support/engine-test.js";
import { type ErrandStack, startErrandStack } from "../test-support/errand-stack.js";
import { captureLogs } from "../test-support/log-capture.js";
import { redisAclRules } from "./redis-acl.js";

const USER = "errand-app";
const PASSWORD = randomBytes(16).toString("hex");
/** More than a tool result may carry inline (32 KiB): it is stored as a blob. */
const LARGE_RESULT = "x".repeat(40_000);

const agents = (() => {
  const common = {
    instructions: "Follow your script.",
    model: scriptedModel(),
    scriptFromInput: true,
  };
  const fetchPage = defineTool({
    name: "fetch_page",
    description: "Fetches a long page.",
    parameters: z.object({}),
    handler: async () => LARGE_RESULT,
  });
  return [
    defineAgent({ ...common, name: "reader", tools: [fetchPage] }),
    defineAgent({ ...common, name: "sleeper" }),
    defineAgent({ ...common, name: "lead", tools: parentTools() }),
    defineAgent({ ...common, name: "child" }),
  ];
})();

let server: RedisServer;
let admin: Redis;
let prefix: string;
let errand: Errand;
let stack: ErrandStack | undefined;

it.beforeAll(async ({ engineRedis }) => {
  server = engineRedis.server;
  admin = engineRedis.connect();
  prefix = uniqueKeyPrefix("engine-acl");
  await admin.acl("SETUSER", USER, ...redisAclRules(prefix), `>${PASSWORD}`);
  await admin.acl("LOG", "RESET");
  const connection = `redis://${USER}:${PASSWORD}@${server.host}:${server.port}`;
  stack = await startErrandStack({
    connection,
    prefix,
    logger: captureLogs().logger,
    worker: {
      agents,
      concurrency: 4,
      parkRecheckMs: 60_000,
      flowControl: { keyConcurrency: [{ key: "tenant-*", limit: 2 }] },
    },
    collector: { blockMs: 100, reaper: { intervalMs: 100 } },
  });
  errand = stack.errand;
});
afterAll(async () => {
  await stack?.stop({ graceMs: 0 });
});

/** Resolves once the run's log holds `type`, following it. */
async function waitForEvent(runId: string, type: string): Promise<void> {
  for await (const event of errand.events(runId, { follow: true })) {
    if (event.type === type) return;
  }
  throw new Error(`run ${runId} ended without ${type}`);
}

/** The remaining time to live of each key, by key: > 0 when it expires, -1 never, -2 missing. */
async function ttls(keys: readonly string[]): Promise<Record<string, number>> {
  const values = await Promise.all(keys.map((key) => admin.pttl(key)));
  return Object.fromEntries(keys.map((key, i) => [key, values[i]!]));
}

describe("errand as the least-privilege ACL user", () => {
  it("runs a whole workload without a refused command, and every settled run's keys expire", async () => {
    const reader = await errand.fire({
      agent: "reader",
      input: { script: [{ call: [{ tool: "fetch_page", args: {} }] }, { say: "read it" }] },
      concurrencyKey: "tenant-a",
    });
    const sleeper = await errand.fire({
      agent: "sleeper",
      input: { script: [{ say: "never", sleepMs: 60_000 }] },
    });
    const late = await errand.fire({
      agent: "sleeper",
      input: { script: [{ say: "too late", sleepMs: 60_000 }] },
      deadlineMs: 1_000,
    });
    const children = [1, 2].map((n) => ({
      agent: "child",
      input: { script: [{ say: `child ${n}` }] },
    }));
    const lead = await errand.fire({
      agent: "lead",
      input: {
        script: [
          { call: [{ tool: "spawn_agents", args: { agents: children } }] },
          { call: [{ tool: "collect_agents", args: { wait: true } }] },
          { say: "both collected" },
        ],
      },
    });

    await waitForEvent(sleeper.runId, "run-started");
    expect(await errand.cancel(sleeper.runId, { reason: "not needed" })).toMatchObject({
      requested: true,
    });

    const expected = {
      [reader.runId]: { status: "succeeded", text: "read it" },
      [sleeper.runId]: { status: "cancelled" },
      [late.runId]: { status: "failed", error: { code: "deadline_exceeded" } },
      [lead.runId]: { status: "succeeded", text: "both collected" },
    };
    for (const [runId, outcome] of Object.entries(expected)) {
      expect(await errand.result(runId, { waitMs: 30_000 })).toMatchObject(outcome);
    }
    const childIds = (await errand.list({ parentRunId: lead.runId })).items.map((run) => run.runId);
    expect(childIds).toHaveLength(2);
    const collected = await errand.collect(childIds, { waitMs: 10_000 });
    expect(collected).toMatchObject({ total: 2, succeeded: 2, pending: 0 });

    await stack?.stop({ graceMs: 1_000 });
    stack = undefined;

    // Nothing was refused, from connecting to closing.
    expect(await admin.acl("LOG")).toEqual([]);

    // Every settled run's keys expire: log, head and result; the reader's blobs; the lead's
    // children.
    const { keys } = errand;
    const runKeys = (runId: string) => [
      keys.runLog(runId),
      keys.runHead(runId),
      keys.result(runId),
    ];
    const settledKeys = [
      ...[reader.runId, sleeper.runId, late.runId, lead.runId, ...childIds].flatMap(runKeys),
      keys.runBlobs(reader.runId),
      keys.children(lead.runId),
    ];
    const remaining = await ttls(settledKeys);
    const withoutExpiry = Object.entries(remaining).filter(([, ttl]) => ttl <= 0);
    expect(withoutExpiry).toEqual([]);
  });

  it("is refused what errand does not need: keys and channels of another prefix, @dangerous commands", async () => {
    const user = new Redis({
      host: server.host,
      port: server.port,
      username: USER,
      password: PASSWORD,
      maxRetriesPerRequest: 0,
    });
    try {
      await expect(user.get("another-app:key")).rejects.toThrow(/NOPERM/);
      await expect(user.publish("another-app:channel", "x")).rejects.toThrow(/NOPERM/);
      await expect(user.flushall()).rejects.toThrow(/NOPERM/);
      await expect(user.config("GET", "maxmemory")).rejects.toThrow(/NOPERM/);
      await expect(user.get(`${prefix}:mine`)).resolves.toBeNull();
    } finally {
      user.disconnect();
    }
  });
});
