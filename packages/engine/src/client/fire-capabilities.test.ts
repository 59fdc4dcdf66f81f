/**
 * `fire` checks a run against what its agent's model honours, read from the
 * registry a real worker wrote: a schema holding a keyword the provider
 * refuses (`schema_not_supported`, naming keyword and provider) and per-run
 * model settings the model refuses, alone or with the agent's
 * (`settings_not_supported`), are refused with nothing written (every key
 * under the prefix scanned before and after). The same schema runs on an
 * OpenAI model (the real `openai` client against the fake OpenAI server),
 * and accepted per-run settings reach the model over the agent's, and are
 * fired again by a re-run.
 */
import { foldRun, settleRun } from "@errand/core";
import {
  defineAgent,
  type Model,
  type ModelCapabilities,
  type ModelSettings,
  openaiModel,
  scriptedModel,
} from "@errand/runtime";
import { type FakeOpenAI, startFakeOpenAI } from "@errand/testing";
import { afterAll, describe, expect } from "vitest";
import { createLogger } from "../logger.js";
import type { EngineFixture } from "../test-support/engine-fixture.js";
import { engineTest } from "../test-support/engine-test.js";
import { createWorker, type ErrandWorker } from "../worker/create-worker.js";

const it = engineTest("fire-capabilities");

/** What a Gemini model declares (the subset the Gemini API takes), as a test model wears it. */
const GEMINI_LIKE: ModelCapabilities = {
  provider: "google",
  modelId: "gemini-2.5-flash",
  forcesToolCalls: true,
  schemaRefusals: [
    { keyword: "additionalProperties", allowedValue: false },
    { keyword: "$ref", fix: "inline the definition" },
    { keyword: "$defs", fix: "inline the definition" },
    { keyword: "propertyNames" },
    { keyword: "uniqueItems" },
    { keyword: "const", within: "anyOf", fix: "use enum" },
  ],
};

/** What a recent Claude model declares: sampling settings refused with thinking, no forced tool call with it. */
const CLAUDE_LIKE: ModelCapabilities = {
  provider: "anthropic",
  modelId: "claude-sonnet-4-5",
  forcesToolCalls: true,
  settingsConflicts: [
    { settings: ["temperature", "reasoning.effort"], reason: "thinking takes no temperature" },
    { settings: ["topP", "reasoning.effort"], reason: "thinking takes no topP" },
  ],
};

/** The settings each request of the claude-like model was asked with, in order. */
const askedSettings: ModelSettings[] = [];

/** A scripted model wearing `capabilities`, taking settings and noting them. */
function wearing(name: string, capabilities: ModelCapabilities): Model {
  const inner = scriptedModel({ name });
  return {
    name,
    supportsTools: true,
    capabilities,
    refuseSettings: () => undefined,
    respond(request, signal) {
      askedSettings.push(request.settings);
      return inner.respond(request, signal);
    },
  };
}

/** A verdict whose values are a union of consts: in the strict subset, refused by Gemini. */
const Verdict = {
  type: "object",
  properties: {
    verdict: {
      anyOf: [
        { type: "string", const: "approve" },
        { type: "string", const: "reject" },
      ],
    },
  },
  required: ["verdict"],
  additionalProperties: false,
};

/** A tree whose nodes are named by `$ref`: in the strict subset, refused by Gemini. */
const Tree = {
  type: "object",
  properties: { root: { $ref: "#/$defs/node" } },
  required: ["root"],
  additionalProperties: false,
  $defs: {
    node: {
      type: "object",
      properties: {
        label: { type: "string" },
        children: { type: "array", items: { $ref: "#/$defs/node" } },
      },
      required: ["label", "children"],
      additionalProperties: false,
    },
  },
};

/** A flat schema every model here carries. */
const Flat = {
  type: "object",
  properties: { verdict: { type: "string", enum: ["approve", "reject"] } },
  required: ["verdict"],
  additionalProperties: false,
};

const recordVerdict = { call: [{ tool: "structured_output", args: { verdict: "approve" } }] };

let worker: ErrandWorker;
let openai: FakeOpenAI;

it.beforeAll(async ({ fx }) => {
  openai = await startFakeOpenAI({ scripts: { "gpt-4o-mini": [recordVerdict] } });
  worker = await createWorker({
    connection: fx.server.url,
    prefix: fx.prefix,
    agents: [
      defineAgent({
        name: "gemini-judge",
        instructions: "Judge.",
        model: wearing("google:gemini-2.5-flash", GEMINI_LIKE),
        scriptFromInput: true,
      }),
      defineAgent({
        name: "openai-judge",
        instructions: "Judge.",
        model: openaiModel({ baseURL: openai.baseURL, apiKey: "test", model: "gpt-4o-mini" }),
      }),
      defineAgent({
        name: "claude-thinker",
        instructions: "Think, then answer.",
        model: wearing("anthropic:claude-sonnet-4-5", CLAUDE_LIKE),
        modelSettings: { reasoning: { effort: "medium" }, maxOutputTokens: 4_000 },
        scriptFromInput: true,
      }),
      defineAgent({
        name: "plain",
        instructions: "Talk.",
        model: scriptedModel(),
        scriptFromInput: true,
      }),
    ],
    logger: createLogger({ level: "silent" }),
  });
});
afterAll(async () => {
  await worker?.close({ graceMs: 1_000 });
  await openai?.close();
});

async function settled(fx: EngineFixture, runId: string) {
  return settleRun(foldRun(await fx.waitForEvent(runId)));
}

/**
 * BullMQ's own bookkeeping, which a live worker writes and clears whatever
 * is fired: a queue's meta, its marker of waiting jobs, its stalled check.
 */
const WORKER_BOOKKEEPING = /:(meta|marker|stalled-check)$/;

/** Every key under the fixture's prefix, sorted, bar the worker's BullMQ bookkeeping. */
async function allKeys(fx: EngineFixture): Promise<string[]> {
  const keys = await fx.redis.keys(`${fx.prefix}:*`);
  return keys.filter((key) => !WORKER_BOOKKEEPING.test(key)).sort();
}

/**
 * Fires `spec`, expecting a refusal with no key written. Only keys added
 * count: a run of an earlier test may settle meanwhile, and its job's keys go.
 */
async function refusal(fx: EngineFixture, spec: Parameters<typeof fx.errand.fire>[0]) {
  const before = new Set(await allKeys(fx));
  const error = await fx.errand.fire(spec).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect((await allKeys(fx)).filter((key) => !before.has(key))).toEqual([]);
  return error as { code: string; message: string; details?: Record<string, unknown> } | undefined;
}

describe("a schema the agent's model cannot carry", () => {
  it("is refused at fire with nothing written, naming the keyword and the provider", async ({
    fx,
  }) => {
    const consts = await refusal(fx, { agent: "gemini-judge", input: null, outputSchema: Verdict });
    expect(consts).toMatchObject({
      code: "schema_not_supported",
      details: {
        agent: "gemini-judge",
        keyword: "const",
        provider: "google",
        path: ["properties", "verdict", "anyOf", 0],
      },
    });
    expect(consts?.message).toContain(
      "google cannot carry the JSON Schema keyword const within anyOf",
    );

    const refs = await refusal(fx, {
      agent: "gemini-judge",
      input: null,
      outputSchema: Tree,
      idempotencyKey: "tree-once",
    });
    expect(refs).toMatchObject({
      code: "schema_not_supported",
      details: { keyword: "$defs", provider: "google", path: [] },
    });
    // The refused fire did not use its idempotency key up.
    const fired = await fx.errand.fire({
      agent: "gemini-judge",
      input: { script: [recordVerdict] },
      outputSchema: Flat,
      idempotencyKey: "tree-once",
    });
    expect(fired.deduplicated).toBeUndefined();
    expect(await settled(fx, fired.runId)).toMatchObject({ status: "succeeded" });
  });

  it("runs on an OpenAI model, whose strict schemas take it", async ({ fx }) => {
    const { runId } = await fx.errand.fire({
      agent: "openai-judge",
      input: null,
      outputSchema: Verdict,
    });
    expect(await settled(fx, runId)).toMatchObject({
      status: "succeeded",
      output: { verdict: "approve" },
    });
    const sent = openai.requests.at(-1)?.body?.tools?.map((tool) => tool.function.parameters);
    expect(sent).toContainEqual(Verdict);
  });

  it("a schema without the refused keywords runs on the Gemini-like model", async ({ fx }) => {
    const { runId } = await fx.errand.fire({
      agent: "gemini-judge",
      input: { script: [recordVerdict] },
      outputSchema: Flat,
    });
    expect(await settled(fx, runId)).toMatchObject({
      status: "succeeded",
      output: { verdict: "approve" },
    });
  });
});

describe("per-run model settings", () => {
  it("that conflict with the agent's on its model are refused at fire with nothing written", async ({
    fx,
  }) => {
    const temperature = await refusal(fx, {
      agent: "claude-thinker",
      input: null,
      modelSettings: { temperature: 0.3 },
    });
    expect(temperature).toMatchObject({
      code: "settings_not_supported",
      details: { agent: "claude-thinker", provider: "anthropic" },
    });
    expect(temperature?.message).toContain("anthropic refuses temperature with reasoning.effort");
    const topP = await refusal(fx, {
      agent: "claude-thinker",
      input: null,
      modelSettings: { topP: 0.9 },
    });
    expect(topP?.message).toContain("anthropic refuses topP with reasoning.effort");
  });

  it("are refused for a model that takes none", async ({ fx }) => {
    const refused = await refusal(fx, {
      agent: "plain",
      input: null,
      modelSettings: { temperature: 0.3 },
    });
    expect(refused).toMatchObject({ code: "settings_not_supported" });
    expect(refused?.message).toContain("its model takes no model settings");
  });

  it("that the model honours reach it over the agent's, and are logged in run-queued", async ({
    fx,
  }) => {
    const { runId } = await fx.errand.fire({
      agent: "claude-thinker",
      input: { script: [{ say: "thought it through" }] },
      modelSettings: { maxOutputTokens: 9_000, reasoning: { effort: "high" } },
    });
    expect(await settled(fx, runId)).toMatchObject({ status: "succeeded" });
    const [queued] = await fx.errand.store.readLog(runId);
    expect(queued).toMatchObject({
      type: "run-queued",
      data: { modelSettings: { maxOutputTokens: 9_000, reasoning: { effort: "high" } } },
    });
    expect(askedSettings.at(-1)).toEqual({ maxOutputTokens: 9_000, reasoning: { effort: "high" } });

    // A re-run fires the run again with the settings it was fired with.
    const { results } = await fx.errand.rerun({ runs: [runId] });
    const rerunId = results[0]?.runId;
    expect(rerunId).toBeDefined();
    const [requeued] = await fx.errand.store.readLog(rerunId!);
    expect(requeued).toMatchObject({
      type: "run-queued",
      data: { modelSettings: { maxOutputTokens: 9_000, reasoning: { effort: "high" } } },
    });
    // Settled here, so its keys are not written during the next test's refusal.
    expect(await settled(fx, rerunId!)).toMatchObject({ status: "succeeded" });
  });

  it("outside the settings a run may give are refused as invalid_spec", async ({ fx }) => {
    const refused = await refusal(fx, {
      agent: "claude-thinker",
      input: null,
      modelSettings: { toolChoice: "required" } as never,
    });
    expect(refused).toMatchObject({ code: "invalid_spec" });
  });
});
