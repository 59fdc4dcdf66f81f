/**
 * Bad input to `fire` and `fireMany`: every preflight refusal is a clear
 * ErrandError with its code, and afterwards Redis holds exactly the keys and
 * queue counts it held before — nothing enqueued, no key written.
 */

import { describe, expect } from "vitest";
import { z } from "zod";
import { createLogger } from "../logger.js";
import type { EngineFixture } from "../test-support/engine-fixture.js";
import { engineTest } from "../test-support/engine-test.js";
import { TEST_AGENTS, testAgents } from "../test-support/test-agents.js";
import { createWorker } from "../worker/create-worker.js";
import { createErrand } from "./client.js";
import {
  DEFAULT_MAX_INPUT_BYTES,
  DEFAULT_METADATA_LIMITS,
  MAX_DEADLINE_MS,
  MAX_INPUT_NESTING,
} from "./fire-spec.js";

const it = engineTest("preflight");

it.beforeAll(async ({ fx }) => {
  // A worker registers the test agents and goes away: its registrations stay.
  const worker = await createWorker({
    connection: fx.server.url,
    prefix: fx.prefix,
    agents: testAgents({ redis: fx.redis, prefix: fx.prefix }),
    logger: createLogger({ level: "silent" }),
  });
  await worker.close();
});

const plainScript = { script: [{ say: "hi" }] };

/** Fires `spec` and returns the refusal, checking that Redis did not change. */
async function refusal(fx: EngineFixture, spec: unknown): Promise<unknown> {
  const before = await fx.footprint();
  const error = await fx.errand.fire(spec as never).then(
    (fired) => {
      throw new Error(`fire accepted the spec: ${JSON.stringify(fired)}`);
    },
    (thrown: unknown) => thrown,
  );
  await fx.expectNothingWrittenSince(before);
  return error;
}

describe("fire preflight", () => {
  it("refuses an agent never registered, naming the registered ones", async ({ fx }) => {
    const error = await refusal(fx, { agent: "nobody", input: plainScript });
    expect(error).toMatchObject({ name: "ErrandError", code: "unknown_agent" });
    expect((error as Error).message).toContain('agent "nobody" is not registered');
    expect((error as Error).message).toContain("plain, structured, text-only");
  });

  it("refuses schemas outside the supported subset, zod and JSON Schema alike", async ({ fx }) => {
    const zodOptional = await refusal(fx, {
      agent: TEST_AGENTS.structured,
      input: plainScript,
      outputSchema: z.object({ answer: z.string().optional() }),
    });
    expect(zodOptional).toMatchObject({ code: "unsupported_schema" });
    expect((zodOptional as Error).message).toMatch(/^unsupported JSON schema: /);

    const openObject = await refusal(fx, {
      agent: TEST_AGENTS.structured,
      input: plainScript,
      outputSchema: { type: "object", properties: { answer: { type: "string" } } },
    });
    expect(openObject).toMatchObject({ code: "unsupported_schema" });
  });

  it("refuses a pattern errand cannot match in linear time, and a 10,000-long chain of $refs", async ({
    fx,
  }) => {
    const lookahead = await refusal(fx, {
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
    const chain = await refusal(fx, {
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

  it("refuses a schema for an agent whose model cannot call tools", async ({ fx }) => {
    const error = await refusal(fx, {
      agent: TEST_AGENTS.textOnly,
      input: plainScript,
      outputSchema: z.object({ answer: z.string() }),
    });
    expect(error).toMatchObject({ code: "schema_not_supported" });
    expect((error as Error).message).toContain("text-only");
  });

  it("refuses an input over the limit, by its UTF-8 JSON size", async ({ fx }) => {
    const big = "é".repeat(DEFAULT_MAX_INPUT_BYTES / 2); // 2 bytes each: just over with the quotes
    const error = await refusal(fx, { agent: TEST_AGENTS.plain, input: big });
    expect(error).toMatchObject({ code: "input_too_large" });
    expect((error as { details: unknown }).details).toEqual({
      bytes: DEFAULT_MAX_INPUT_BYTES + 2,
      maxInputBytes: DEFAULT_MAX_INPUT_BYTES,
    });
  });

  it("honours a client's own input limit", async ({ fx }) => {
    const small = createErrand({ connection: fx.server.url, prefix: fx.prefix, maxInputBytes: 10 });
    try {
      const before = await fx.footprint();
      await expect(
        small.fire({ agent: TEST_AGENTS.plain, input: "eleven chars" }),
      ).rejects.toMatchObject({ code: "input_too_large" });
      await fx.expectNothingWrittenSince(before);
    } finally {
      await small.close();
    }
  });

  it.for([
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
  ])("refuses a malformed spec: %s", async ([_label, spec, where], { fx }) => {
    const error = await refusal(fx, spec);
    expect(error).toMatchObject({ code: "invalid_spec" });
    expect((error as Error).message).toContain("invalid fire spec");
    expect((error as Error).message).toContain(where);
  });

  /** `levels` arrays nested in one another around a string. */
  function nestedInput(levels: number): unknown {
    let value: unknown = "leaf";
    for (let i = 0; i < levels; i++) value = [value];
    return value;
  }

  it.for([
    [`${MAX_INPUT_NESTING + 1} levels`, MAX_INPUT_NESTING + 1],
    ["1,000 levels (past Redis' JSON reader)", 1_000],
    ["6,000 levels (past JSON.stringify's stack)", 6_000],
  ] as const)(
    "refuses an input nested %s deep, naming the limit",
    async ([_label, levels], { fx }) => {
      const error = await refusal(fx, { agent: TEST_AGENTS.plain, input: nestedInput(levels) });
      expect(error).toMatchObject({ name: "ErrandError", code: "invalid_spec" });
      expect((error as Error).message).toMatch(
        /^invalid fire spec: input(\[0\])+ is nested more than 100 levels deep; flatten it$/,
      );
    },
  );

  it(`accepts an input nested exactly ${MAX_INPUT_NESTING} levels deep`, async ({ fx }) => {
    const { runId } = await fx.errand.fire({
      agent: TEST_AGENTS.plain,
      input: nestedInput(MAX_INPUT_NESTING),
    });
    const [queued] = await fx.errand.store.readLog(runId);
    expect(queued).toMatchObject({
      type: "run-queued",
      data: { input: nestedInput(MAX_INPUT_NESTING) },
    });
  });

  it.for([
    [
      "an input string",
      { input: { note: "half a pair: \ud83d" } },
      "input.note contains a lone surrogate (\\ud83d at index 13)",
    ],
    [
      "an input key",
      { input: { "\ude00": 1 } },
      "input has a key that contains a lone surrogate (\\ude00 at index 0)",
    ],
    [
      "a metadata value",
      { input: 1, metadata: { team: "a\ud800" } },
      "metadata.team contains a lone surrogate (\\ud800 at index 1)",
    ],
    [
      "a concurrency key",
      { input: 1, concurrencyKey: "tenant\udc00" },
      "concurrencyKey contains a lone surrogate (\\udc00 at index 6)",
    ],
  ] as const)(
    "refuses a lone surrogate in %s, which Redis cannot read",
    async ([_label, spec, message], { fx }) => {
      const error = await refusal(fx, { agent: TEST_AGENTS.plain, ...spec });
      expect(error).toMatchObject({ code: "invalid_spec" });
      expect((error as Error).message).toContain(`invalid fire spec: ${message}`);
    },
  );

  it.for([
    ["a year and a millisecond", MAX_DEADLINE_MS + 1],
    ["past the last date JavaScript has", 8.64e15 + 1],
    ["far past it", 1e300],
  ])("refuses a deadlineMs of %s", async ([_label, deadlineMs], { fx }) => {
    const error = await refusal(fx, { agent: TEST_AGENTS.plain, input: 1, deadlineMs });
    expect(error).toMatchObject({ code: "invalid_spec" });
    expect((error as Error).message).toMatch(/^invalid fire spec: deadlineMs: Too big/);
  });

  it("accepts a deadline of one year", async ({ fx }) => {
    const at = Date.now();
    const { runId } = await fx.errand.fire({
      agent: TEST_AGENTS.plain,
      input: 1,
      deadlineMs: MAX_DEADLINE_MS,
    });
    const [queued] = await fx.errand.store.readLog(runId);
    if (queued?.type !== "run-queued") throw new Error("the log does not open with run-queued");
    const deadlineAt = Date.parse(queued.data.limits.deadlineAt ?? "");
    expect(deadlineAt).toBeGreaterThanOrEqual(at + MAX_DEADLINE_MS);
  });

  it.for([
    [
      "10,000 keys",
      Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, "v"])),
      "metadata has 10000 keys, over the limit of 64 (maxKeys)",
    ],
    [
      "a 10 MB value",
      { blob: "x".repeat(10_000_000) },
      'metadata value of "blob" is 10000000 bytes, over the limit of 1024 (maxValueBytes)',
    ],
    [
      "a key of 129 bytes",
      { ["k".repeat(129)]: "v" },
      `metadata key "${"k".repeat(40)}…" is 129 bytes, over the limit of 128 (maxKeyBytes)`,
    ],
    [
      "17 values of 1 KiB (over 16 KiB in all)",
      Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, "é".repeat(512)])),
      "metadata is 17552 bytes of JSON, over the limit of 16384 (maxBytes)",
    ],
  ])("refuses metadata of %s, naming the limit", async ([_label, metadata, message], { fx }) => {
    const error = await refusal(fx, { agent: TEST_AGENTS.plain, input: 1, metadata });
    expect(error).toMatchObject({ code: "invalid_spec" });
    expect((error as Error).message).toBe(`invalid fire spec: ${message}`);
  });

  it("accepts metadata at every default limit, and honours a client's own limits", async ({
    fx,
  }) => {
    const atLimits = Object.fromEntries(
      Array.from({ length: DEFAULT_METADATA_LIMITS.maxKeys }, (_, i) => [
        `k${i}`.padEnd(DEFAULT_METADATA_LIMITS.maxKeyBytes, "k"),
        i < 7 ? "v".repeat(DEFAULT_METADATA_LIMITS.maxValueBytes) : "",
      ]),
    );
    expect(new TextEncoder().encode(JSON.stringify(atLimits)).length).toBeLessThanOrEqual(
      DEFAULT_METADATA_LIMITS.maxBytes,
    );
    await fx.errand.fire({ agent: TEST_AGENTS.plain, input: 1, metadata: atLimits });

    const strict = createErrand({
      connection: fx.server.url,
      prefix: fx.prefix,
      metadataLimits: { maxKeys: 1 },
    });
    try {
      const before = await fx.footprint();
      await expect(
        strict.fire({ agent: TEST_AGENTS.plain, input: 1, metadata: { a: "1", b: "2" } }),
      ).rejects.toMatchObject({
        code: "invalid_spec",
        details: { limit: "maxKeys", keys: 2, maxKeys: 1 },
      });
      await fx.expectNothingWrittenSince(before);
      await strict.fire({ agent: TEST_AGENTS.plain, input: 1, metadata: { a: "1" } });
    } finally {
      await strict.close();
    }
  });

  it("refuses a parent that does not exist", async ({ fx }) => {
    const parentRunId = fx.errand.store.newRunId();
    const error = await refusal(fx, { agent: TEST_AGENTS.plain, input: plainScript, parentRunId });
    expect(error).toMatchObject({ code: "not_found", details: { parentRunId } });
  });

  it("accepts a valid spec while no worker runs: the registration outlived its worker", async ({
    fx,
  }) => {
    const before = await fx.footprint();
    const { runId } = await fx.errand.fire({ agent: TEST_AGENTS.plain, input: plainScript });
    const after = await fx.footprint();
    expect(after.jobs.waiting).toBe((before.jobs.waiting ?? 0) + 1);
    expect(Object.keys(after.keys).filter((key) => !(key in before.keys))).not.toEqual([]);
    expect(await fx.queue.getJobState(runId)).toBe("waiting");
  });

  it("refuses a fireMany that is not a list, or is too long, before anything", async ({ fx }) => {
    const before = await fx.footprint();
    await expect(fx.errand.fireMany({} as never)).rejects.toMatchObject({ code: "invalid_spec" });
    const tooMany = Array.from({ length: 1_001 }, () => ({ agent: "plain", input: 1 }));
    await expect(fx.errand.fireMany(tooMany)).rejects.toMatchObject({ code: "invalid_spec" });
    await fx.expectNothingWrittenSince(before);
  });

  it("refuses every bad spec of a fireMany alone, writing nothing for it", async ({ fx }) => {
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
    await fx.expectNothingWrittenSince(before);
  });
});
