/**
 * An agent's description and input schema travel through the registry: a
 * worker registers both, every client reads them back. `fire` checks an input
 * against the registered schema and refuses a mismatch with `invalid_input`
 * and its issues, writing nothing; `fireMany` refuses such items alone. A
 * record of an older worker, without the fields, is read as before, and the
 * check costs `fire` no Redis command: the schema comes in the read of the
 * registrations preflight makes anyway. A registered schema outside the
 * subset is refused as an output schema would be.
 */
import { foldRun, isErrandError, settleRun } from "@errand/core";
import { defineAgent, scriptedModel } from "@errand/runtime";
import type { Redis } from "ioredis";
import { afterAll, describe, expect } from "vitest";
import { z } from "zod";
import { createLogger } from "../logger.js";
import { queueOfAgents } from "../queues/agent-queues.js";
import { readAgentRegistrations } from "../queues/registry.js";
import type { EngineFixture } from "../test-support/engine-fixture.js";
import { engineTest } from "../test-support/engine-test.js";
import { registerTestQueue } from "../test-support/registered-queue.js";
import { createWorker, type ErrandWorker } from "../worker/create-worker.js";

const it = engineTest("agent-input");

const SUMMARY = "Summarises one document in a few sentences.";

const summarizer = defineAgent({
  name: "summarizer",
  description: SUMMARY,
  instructions: "Summarise the document.",
  model: scriptedModel(),
  inputSchema: z.object({ document: z.string().min(1), sentences: z.number().int() }),
  script: [{ say: "A short summary." }],
});

/** The same agent without a schema: the measure of what a fire costs without one. */
const echo = defineAgent({
  name: "echo",
  instructions: "Say it back.",
  model: scriptedModel(),
  script: [{ say: "Said." }],
});

let worker: ErrandWorker;

it.beforeAll(async ({ fx }) => {
  worker = await createWorker({
    connection: fx.server.url,
    prefix: fx.prefix,
    agents: [summarizer, echo],
    logger: createLogger({ level: "silent" }),
  });
});
afterAll(async () => {
  await worker?.close({ graceMs: 1_000 });
});

/** The keys of every run (logs, heads, …) under the fixture's prefix: a refused fire adds none. */
async function runKeys(fx: EngineFixture): Promise<string[]> {
  return (await fx.redis.keys(`${fx.prefix}:*:run:*`)).sort();
}

/** The runs fired so far: their heads, `<prefix>:{shard}:run:<runId>`. */
async function runsFired(fx: EngineFixture): Promise<number> {
  return (await runKeys(fx)).filter((key) => /:run:R\w+$/.test(key)).length;
}

/** Every command Redis ran so far, `INFO` itself left out (`INFO commandstats`). */
async function commandsRun(redis: Redis): Promise<number> {
  const info = await redis.info("commandstats");
  return [...info.matchAll(/^cmdstat_([\w|]+):calls=(\d+)/gm)]
    .filter(([, name]) => name !== "info")
    .reduce((sum, [, , calls]) => sum + Number(calls), 0);
}

describe("an agent's description and input schema", () => {
  it("are registered by its worker and read back by any client", async ({ fx }) => {
    const [registration] = await readAgentRegistrations(fx.redis, fx.errand.keys, "summarizer");
    expect(registration).toMatchObject({
      name: "summarizer",
      description: SUMMARY,
      inputSchema: {
        type: "object",
        properties: { document: { type: "string", minLength: 1 }, sentences: { type: "integer" } },
        required: ["document", "sentences"],
        additionalProperties: false,
      },
    });
    const [plain] = await readAgentRegistrations(fx.redis, fx.errand.keys, "echo");
    expect(plain).toBeDefined();
    expect(plain).not.toHaveProperty("description");
    expect(plain).not.toHaveProperty("inputSchema");
  });

  it("refuses a fire whose input does not match: invalid_input with every issue, nothing written", async ({
    fx,
  }) => {
    const before = await runKeys(fx);
    const error = await fx.errand
      .fire({ agent: "summarizer", input: { document: "", sentences: "three" } })
      .then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
    expect(isErrandError(error, "invalid_input")).toBe(true);
    const refused = error as Error & { details: unknown };
    expect(refused.details).toEqual({
      agent: "summarizer",
      issues: [
        { path: "document", message: expect.stringMatching(/>=1 characters/) },
        { path: "sentences", message: "expected number, received string" },
      ],
    });
    expect(refused.message).toMatch(
      /^the input does not match agent "summarizer"'s inputSchema: document: .*; sentences: expected number, received string; fix the input and send it again$/,
    );
    expect(await runKeys(fx)).toEqual(before);
  });

  it("refuses at fire a registered input schema outside the subset, nothing written", async ({
    fx,
  }) => {
    // A registration as a worker of another errand version (or a hand-written one) could leave it.
    const openObject = { type: "object", properties: { document: { type: "string" } } };
    await registerTestQueue(fx.redis, fx.errand.keys, [
      { name: "loose-input", inputSchema: openObject },
    ]);
    const before = await runKeys(fx);
    await expect(
      fx.errand.fire({ agent: "loose-input", input: { document: "Text." } }),
    ).rejects.toMatchObject({ code: "unsupported_schema" });
    expect(await runKeys(fx)).toEqual(before);
  });

  it("runs a fire whose input matches", async ({ fx }) => {
    const { runId } = await fx.errand.fire({
      agent: "summarizer",
      input: { document: "A long text.", sentences: 2 },
    });
    expect(settleRun(foldRun(await fx.waitForEvent(runId)))).toMatchObject({
      status: "succeeded",
      text: "A short summary.",
    });
  });

  it("refuses each mismatched item of a fireMany alone, and fires the others", async ({ fx }) => {
    const before = await runsFired(fx);
    const batch = await fx.errand.fireMany([
      { agent: "summarizer", input: null },
      { agent: "summarizer", input: { document: "Text.", sentences: 1 } },
      { agent: "summarizer", input: { document: "Text.", sentences: 1, extra: true } },
      { agent: "echo", input: { anything: "goes" } },
    ]);
    expect(batch).toMatchObject({ total: 4, succeeded: 2, failed: 2 });
    expect(batch.results).toEqual([
      {
        ok: false,
        retryable: false,
        error: {
          code: "invalid_input",
          message: expect.stringContaining("inputSchema: $: expected object, received null"),
        },
      },
      { ok: true, runId: expect.any(String) },
      {
        ok: false,
        retryable: false,
        error: { code: "invalid_input", message: expect.stringContaining('"extra"') },
      },
      { ok: true, runId: expect.any(String) },
    ]);
    expect(await runsFired(fx)).toBe(before + 2);
  });

  it("reads a record of an older worker, without the fields, as before", async ({ fx }) => {
    // A record as workers older than descriptions, input schemas and versions wrote it.
    const queue = queueOfAgents(fx.prefix, ["elder"]);
    const lastSeenAt = new Date().toISOString();
    const old = { name: "elder", queue, supportsSchema: true, heartbeatMs: 5_000, lastSeenAt };
    await fx.redis.hset(fx.errand.keys.agentRegistry("elder"), queue, JSON.stringify(old));
    await fx.redis.hset(
      fx.errand.keys.queueRegistry,
      queue,
      JSON.stringify({ queue, agents: ["elder"], heartbeatMs: 5_000, lastSeenAt }),
    );
    expect(await readAgentRegistrations(fx.redis, fx.errand.keys, "elder")).toEqual([
      { ...old, scriptFromInput: false },
    ]);
    const fired = await fx.errand.fire({ agent: "elder", input: { any: ["thing"] } });
    expect(fired.runId).toMatch(/^R/);
  });

  it("costs fire no Redis command: a checked input runs as many as an unchecked one", async ({
    fx,
  }) => {
    /** The commands one fire of `spec` makes Redis run, after a first fire warmed its scripts. */
    const commandsOfFire = async (spec: { agent: string; input: unknown }) => {
      await fx.errand.fire(spec);
      const before = await commandsRun(fx.redis);
      await fx.errand.fire(spec);
      return (await commandsRun(fx.redis)) - before;
    };
    // The worker runs what is fired: close it so that only the fires' commands are counted.
    await worker.close({ graceMs: 1_000 });
    const checked = await commandsOfFire({
      agent: "summarizer",
      input: { document: "Text.", sentences: 1 },
    });
    const unchecked = await commandsOfFire({ agent: "echo", input: { document: "Text." } });
    expect(unchecked).toBeGreaterThan(0);
    expect(checked).toBe(unchecked);
  });
});
