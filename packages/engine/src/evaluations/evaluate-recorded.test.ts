/**
 * What a candidate's calls are answered with, on recorded runs made by a
 * real worker and collector on a private Redis (the scripted model): a
 * parent's `spawn_agents` and `collect_agents` answered from its recorded
 * children, with no child run fired and no child tool run; and a call the
 * log cannot answer under each policy — `refuse` answers the refusal,
 * `fail` fails the case, `live` runs the tool (its counter moves only then).
 */
import type { Script } from "@errand/core";
import { type Agent, defineAgent, defineTool, scriptedModel } from "@errand/runtime";
import type { Redis } from "ioredis";
import { afterAll, describe, expect } from "vitest";
import { z } from "zod";
import { TEST_SHARDS } from "../collector/test-support/redis-fixture.js";
import { parentTools } from "../parents/parent-tools.js";
import { redisTest } from "../test-support/engine-test.js";
import { type ErrandStack, startErrandStack } from "../test-support/errand-stack.js";
import { captureLogs } from "../test-support/log-capture.js";
import type { UnrecordedCallPolicy } from "./evaluation-record.js";

const it = redisTest;

let stack: ErrandStack;
let prefix: string;

const counter = (name: string) => `${prefix}:test:${name}`;

function countingTool(redis: Redis, name: string) {
  return defineTool({
    name,
    description: `Does ${name} (counted).`,
    parameters: z.object({ q: z.string() }),
    handler: async ({ q }) => {
      await redis.incr(counter(name));
      return { q, done: true };
    },
  });
}

function lead(instructions: string): Agent {
  return defineAgent({
    name: "lead",
    instructions,
    model: scriptedModel(),
    tools: parentTools(),
    scriptFromInput: true,
  });
}

function checker(redis: Redis, q: string): Agent {
  return defineAgent({
    name: "checker",
    instructions: `Check ${q}.`,
    model: scriptedModel(),
    tools: [countingTool(redis, "probe")],
    script: [{ call: [{ tool: "probe", args: { q } }] }, { say: `checked ${q}` }],
  });
}

const leadScript: Script = [
  {
    call: [
      {
        tool: "spawn_agents",
        args: {
          agents: [
            { agent: "helper", input: { q: "one" } },
            { agent: "helper", input: { q: "two" } },
          ],
        },
      },
    ],
  },
  { call: [{ tool: "collect_agents", args: { wait: true } }] },
  { say: "both helpers are done" },
];

let parentRunId: string;
let checkerRunId: string;

afterAll(async () => {
  await stack?.stop();
});

it.beforeAll(async ({ engineRedis }) => {
  const { redis } = engineRedis;
  prefix = engineRedis.prefixed("evaluate-recorded").prefix;
  const helper = defineAgent({
    name: "helper",
    instructions: "Help.",
    model: scriptedModel(),
    tools: [countingTool(redis, "work")],
    script: [{ call: [{ tool: "work", args: { q: "job" } }] }, { say: "helped" }],
  });
  stack = await startErrandStack({
    connection: engineRedis.url,
    prefix,
    shards: TEST_SHARDS,
    logger: captureLogs().logger,
    worker: { agents: [lead("Lead the helpers."), helper, checker(redis, "a")], concurrency: 4 },
  });
  parentRunId = (await stack.errand.fire({ agent: "lead", input: { script: leadScript } })).runId;
  checkerRunId = (await stack.errand.fire({ agent: "checker", input: "check" })).runId;
  const settled = await stack.errand.collect([parentRunId, checkerRunId], { waitMs: 60_000 });
  expect(settled.succeeded).toBe(2);
});

describe("a parent evaluated with its children answered from the log", () => {
  it("fires no child and runs no child tool", async ({ engineRedis }) => {
    const { redis } = engineRedis;
    const helpersBefore = await stack.errand.list({ agent: "helper" });
    expect(helpersBefore.count).toBe(2);
    expect(Number(await redis.get(counter("work")))).toBe(2);

    const evaluation = await stack.errand.evaluate({
      runs: [parentRunId],
      agent: lead("Lead the helpers, briefly."),
    });
    const [evaluated] = evaluation.cases;
    expect(evaluated).toMatchObject({
      runId: parentRunId,
      changed: false,
      failed: false,
      candidate: { status: "succeeded", text: "both helpers are done" },
    });
    const calls = evaluated!.toolCalls.candidate;
    expect(calls.map((c) => [c.tool, c.ok, c.answeredFrom])).toEqual([
      ["spawn_agents", true, "log"],
      ["collect_agents", true, "log"],
    ]);
    const children = helpersBefore.items.map((run) => run.runId).sort();
    const spawned = calls[0]!.result as { results: { runId: string }[] };
    expect(spawned.results.map((r) => r.runId).sort()).toEqual(children);
    expect(calls[1]!.result).toMatchObject({ total: 2, succeeded: 2, pending: 0 });

    expect((await stack.errand.list({ agent: "helper" })).count).toBe(2);
    expect(await redis.zcard(stack.errand.keys.children(parentRunId))).toBe(2);
    expect(Number(await redis.get(counter("work")))).toBe(2);
  });
});

describe("a call the recorded run never made", () => {
  const evaluateUnder = async (redis: Redis, policy: UnrecordedCallPolicy) => {
    const evaluation = await stack.errand.evaluate({
      runs: [checkerRunId],
      agent: checker(redis, "b"),
      onUnrecorded: policy,
    });
    return evaluation.cases[0]!;
  };

  it("under refuse: the model reads the refusal, the tool does not run", async ({
    engineRedis,
  }) => {
    const { redis } = engineRedis;
    const before = Number(await redis.get(counter("probe")));
    const evaluated = await evaluateUnder(redis, "refuse");
    expect(Number(await redis.get(counter("probe")))).toBe(before);
    expect(evaluated.unrecordedCalls).toEqual([
      { tool: "probe", args: { q: "b" }, policy: "refuse" },
    ]);
    expect(evaluated.failed).toBe(false);
    expect(evaluated.candidate).toMatchObject({ status: "succeeded", text: "checked b" });
    expect(evaluated.toolCalls.candidate).toEqual([
      expect.objectContaining({
        tool: "probe",
        ok: false,
        answeredFrom: "refused",
        error: expect.stringMatching(/^unrecorded_call: probe/),
      }),
    ]);
  });

  it("under fail: the case fails with unrecorded_call, the tool does not run", async ({
    engineRedis,
  }) => {
    const { redis } = engineRedis;
    const before = Number(await redis.get(counter("probe")));
    const evaluated = await evaluateUnder(redis, "fail");
    expect(Number(await redis.get(counter("probe")))).toBe(before);
    expect(evaluated).toMatchObject({
      failed: true,
      changed: true,
      candidate: { status: "failed", error: { code: "unrecorded_call" } },
      unrecordedCalls: [{ tool: "probe", policy: "fail" }],
    });
  });

  it("under live: the tool runs, once", async ({ engineRedis }) => {
    const { redis } = engineRedis;
    const before = Number(await redis.get(counter("probe")));
    const evaluated = await evaluateUnder(redis, "live");
    expect(Number(await redis.get(counter("probe")))).toBe(before + 1);
    expect(evaluated.toolCalls.candidate).toEqual([
      expect.objectContaining({
        tool: "probe",
        ok: true,
        answeredFrom: "live",
        result: { q: "b", done: true },
      }),
    ]);
    expect(evaluated.unrecordedCalls).toEqual([
      { tool: "probe", args: { q: "b" }, policy: "live" },
    ]);
  });

  it("refuses, before anything is written, a candidate that names a model it is not given", async ({
    engineRedis,
  }) => {
    const before = (await stack.errand.evaluations.list()).count;
    const named = { ...checker(engineRedis.redis, "a"), model: "gpt-4.1" };
    await expect(
      stack.errand.evaluate({ runs: [checkerRunId], agent: named }),
    ).rejects.toMatchObject({
      code: "invalid_spec",
    });
    expect((await stack.errand.evaluations.list()).count).toBe(before);
  });

  it("answers the recorded call from the log", async ({ engineRedis }) => {
    const { redis } = engineRedis;
    const before = Number(await redis.get(counter("probe")));
    const evaluation = await stack.errand.evaluate({
      runs: [checkerRunId],
      agent: checker(redis, "a"),
    });
    expect(Number(await redis.get(counter("probe")))).toBe(before);
    expect(evaluation.cases[0]).toMatchObject({ changed: false, unrecordedCalls: [] });
    expect(evaluation.cases[0]!.toolCalls.candidate[0]).toMatchObject({
      answeredFrom: "log",
      result: { q: "a", done: true },
    });
  });
});
