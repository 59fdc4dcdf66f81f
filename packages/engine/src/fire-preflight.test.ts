/**
 * Bad input to `fire` and `fireMany`: every preflight refusal is a clear
 * ErrandError with its code, and afterwards Redis holds exactly the keys and
 * queue counts it held before — nothing enqueued, no key written.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createErrand } from "./client.js";
import { DEFAULT_MAX_INPUT_BYTES } from "./fire-spec.js";
import { createLogger } from "./logger.js";
import { type EngineFixture, startEngineFixture } from "./test-support/engine-fixture.js";
import { TEST_AGENTS, testAgents } from "./test-support/test-agents.js";
import { createWorker } from "./worker/create-worker.js";

let fx: EngineFixture;

beforeAll(async () => {
  fx = await startEngineFixture("preflight");
  // A worker registers the test agents and goes away: its registrations stay.
  const worker = await createWorker({
    connection: fx.server.url,
    prefix: fx.prefix,
    agents: testAgents({ redis: fx.redis, prefix: fx.prefix }),
    logger: createLogger({ level: "silent" }),
  });
  await worker.close();
});
afterAll(() => fx?.stop());

const plainScript = { script: [{ say: "hi" }] };

/** Fires `spec` and returns the refusal, checking that Redis did not change. */
async function refusal(spec: unknown): Promise<unknown> {
  const before = await fx.footprint();
  const error = await fx.errand.fire(spec as never).then(
    (fired) => {
      throw new Error(`fire accepted the spec: ${JSON.stringify(fired)}`);
    },
    (thrown: unknown) => thrown,
  );
  expect(await fx.footprint()).toEqual(before);
  return error;
}

describe("fire preflight", () => {
  it("refuses an agent never registered, naming the registered ones", async () => {
    const error = await refusal({ agent: "nobody", input: plainScript });
    expect(error).toMatchObject({ name: "ErrandError", code: "unknown_agent" });
    expect((error as Error).message).toContain('agent "nobody" is not registered');
    expect((error as Error).message).toContain("plain, structured, text-only");
  });

  it("refuses schemas outside the supported subset, zod and JSON Schema alike", async () => {
    const zodOptional = await refusal({
      agent: TEST_AGENTS.structured,
      input: plainScript,
      outputSchema: z.object({ answer: z.string().optional() }),
    });
    expect(zodOptional).toMatchObject({ code: "unsupported_schema" });
    expect((zodOptional as Error).message).toMatch(/^unsupported JSON schema: /);

    const openObject = await refusal({
      agent: TEST_AGENTS.structured,
      input: plainScript,
      outputSchema: { type: "object", properties: { answer: { type: "string" } } },
    });
    expect(openObject).toMatchObject({ code: "unsupported_schema" });
  });

  it("refuses a pattern errand cannot match in linear time, and a 10,000-long chain of $refs", async () => {
    const lookahead = await refusal({
      agent: TEST_AGENTS.plain,
      input: plainScript,
      outputSchema: {
        type: "object",
        properties: { word: { type: "string", pattern: "^(?=a)a+$" } },
        required: ["word"],
        additionalProperties: false,
      },
    });
    expect(lookahead).toMatchObject({ code: "unsupported_schema" });
    expect((lookahead as Error).message).toMatch(
      /^unsupported JSON schema: properties\.word\.pattern is "\^\(\?=a\)a\+\$", which errand cannot match in linear time/,
    );

    const links = 10_000;
    const $defs = Object.fromEntries(
      Array.from({ length: links }, (_, i) => [
        `d${i}`,
        i === links - 1 ? { type: "string" } : { $ref: `#/$defs/d${i + 1}` },
      ]),
    );
    const chain = await refusal({
      agent: TEST_AGENTS.plain,
      input: plainScript,
      outputSchema: {
        type: "object",
        properties: { start: { $ref: "#/$defs/d0" } },
        required: ["start"],
        additionalProperties: false,
        $defs,
      },
    });
    expect(chain).toMatchObject({ code: "unsupported_schema" });
    expect((chain as Error).message).toMatch(/nests schemas 10,002 deep .* above the limit of 64/);
  });

  it("refuses a schema for an agent whose model cannot call tools", async () => {
    const error = await refusal({
      agent: TEST_AGENTS.textOnly,
      input: plainScript,
      outputSchema: z.object({ answer: z.string() }),
    });
    expect(error).toMatchObject({ code: "schema_not_supported" });
    expect((error as Error).message).toContain("text-only");
  });

  it("refuses an input over the limit, by its UTF-8 JSON size", async () => {
    const big = "é".repeat(DEFAULT_MAX_INPUT_BYTES / 2); // 2 bytes each: just over with the quotes
    const error = await refusal({ agent: TEST_AGENTS.plain, input: big });
    expect(error).toMatchObject({ code: "input_too_large" });
    expect((error as { details: unknown }).details).toEqual({
      bytes: DEFAULT_MAX_INPUT_BYTES + 2,
      maxInputBytes: DEFAULT_MAX_INPUT_BYTES,
    });
  });

  it("honours a client's own input limit", async () => {
    const small = createErrand({ connection: fx.server.url, prefix: fx.prefix, maxInputBytes: 10 });
    try {
      const before = await fx.footprint();
      await expect(
        small.fire({ agent: TEST_AGENTS.plain, input: "eleven chars" }),
      ).rejects.toMatchObject({ code: "input_too_large" });
      expect(await fx.footprint()).toEqual(before);
    } finally {
      await small.close();
    }
  });

  it.each([
    ["no spec", undefined, "spec: "],
    ["no agent", { input: 1 }, "agent"],
    ["an agent that is not a string", { agent: 7, input: 1 }, "agent"],
    ["an unknown option", { agent: "plain", input: 1, outputschema: {} }, "outputschema"],
    [
      "metadata that is not strings",
      { agent: "plain", input: 1, metadata: { n: 1 } },
      "metadata.n",
    ],
    ["a negative deadline", { agent: "plain", input: 1, deadlineMs: -5 }, "deadlineMs"],
    ["a malformed parentRunId", { agent: "plain", input: 1, parentRunId: "a:b" }, "parentRunId"],
    [
      "an outputSchema that is not an object",
      { agent: "plain", input: 1, outputSchema: "x" },
      "outputSchema",
    ],
    ["no input", { agent: "plain" }, "input"],
    ["an input that is not JSON", { agent: "plain", input: { at: new Date(0) } }, "input.at"],
    ["an input with a BigInt", { agent: "plain", input: [1n] }, "input[0]"],
  ])("refuses a malformed spec: %s", async (_label, spec, where) => {
    const error = await refusal(spec);
    expect(error).toMatchObject({ code: "invalid_spec" });
    expect((error as Error).message).toContain("invalid fire spec");
    expect((error as Error).message).toContain(where);
  });

  it("refuses a parent that does not exist", async () => {
    const parentRunId = fx.errand.store.newRunId();
    const error = await refusal({ agent: TEST_AGENTS.plain, input: plainScript, parentRunId });
    expect(error).toMatchObject({ code: "not_found", details: { parentRunId } });
  });

  it("accepts a valid spec while no worker runs: the registration outlived its worker", async () => {
    const before = await fx.footprint();
    const { runId } = await fx.errand.fire({ agent: TEST_AGENTS.plain, input: plainScript });
    const after = await fx.footprint();
    expect(after.jobs.waiting).toBe((before.jobs.waiting ?? 0) + 1);
    expect(after.keys).toBeGreaterThan(before.keys);
    expect(await fx.queue.getJobState(runId)).toBe("waiting");
  });

  it("refuses a fireMany that is not a list, or is too long, before anything", async () => {
    const before = await fx.footprint();
    await expect(fx.errand.fireMany({} as never)).rejects.toMatchObject({ code: "invalid_spec" });
    const tooMany = Array.from({ length: 1_001 }, () => ({ agent: "plain", input: 1 }));
    await expect(fx.errand.fireMany(tooMany)).rejects.toMatchObject({ code: "invalid_spec" });
    expect(await fx.footprint()).toEqual(before);
  });

  it("refuses every bad spec of a fireMany alone, writing nothing for it", async () => {
    const before = await fx.footprint();
    const result = await fx.errand.fireMany([
      { agent: "nobody", input: 1 },
      { agent: TEST_AGENTS.textOnly, input: 1, outputSchema: z.object({ a: z.string() }) },
      { agent: TEST_AGENTS.plain, input: "x".repeat(DEFAULT_MAX_INPUT_BYTES) },
    ] as never);
    expect(result).toEqual({
      total: 3,
      succeeded: 0,
      failed: 3,
      results: [
        {
          ok: false,
          error: { code: "unknown_agent", message: expect.any(String) },
          retryable: false,
        },
        {
          ok: false,
          error: { code: "schema_not_supported", message: expect.any(String) },
          retryable: false,
        },
        {
          ok: false,
          error: { code: "input_too_large", message: expect.any(String) },
          retryable: false,
        },
      ],
    });
    expect(await fx.footprint()).toEqual(before);
  });
});
