/**
 * Costs and budgets across providers, on real Redis with real in-process
 * workers and the default price table:
 * - a run on each provider's prices (an OpenAI model through the real
 *   `openai` client against the fake OpenAI server, whose later requests
 *   read from its prompt cache; a Claude and a Gemini model reporting cache
 *   reads, cache writes and reasoning tokens) logs a `costUsd` per response
 *   that is the table's prices times its logged usage, worked out by hand;
 * - a tree whose lead runs on one provider key and whose children run on
 *   two others is stopped by its `costUsd` budget, which counted every
 *   provider's responses.
 */
import type { RunEvent, RunResult, Usage } from "@errand/core";
import { roundUsd } from "@errand/core/ops";
import {
  type Agent,
  defineAgent,
  defineTool,
  type Model,
  type ModelCapabilities,
  openaiModel,
  scriptedModel,
} from "@errand/runtime";
import { type FakeOpenAI, startFakeOpenAI } from "@errand/testing";
import { afterAll, describe, expect } from "vitest";
import { z } from "zod";
import { parentTools } from "../parents/parent-tools.js";
import type { EngineFixture } from "../test-support/engine-fixture.js";
import { parentTest } from "../test-support/engine-test.js";

const it = parentTest("provider-costs");

/**
 * A scripted model of a provider that reports `usage` for every response,
 * as an AI SDK provider's adapter maps it (cache reads and writes part of
 * the input, reasoning part of the output).
 */
function providerModel(provider: string, modelId: string, usage: Usage): Model {
  const inner = scriptedModel({ name: `${provider}:${modelId}` });
  const capabilities: ModelCapabilities = { provider, modelId, forcesToolCalls: true };
  return {
    name: inner.name,
    supportsTools: true,
    providerKey: `https://${provider}.example/v1#key`,
    capabilities,
    async respond(request, signal) {
      return { ...(await inner.respond(request, signal)), usage };
    },
  };
}

/** What a Claude Sonnet 4.5 response reports: 10k input (6k read from cache, 2k written to it), 1.5k output (500 thinking). */
const CLAUDE_USAGE: Usage = {
  inputTokens: 10_000,
  cachedInputTokens: 6_000,
  cacheWriteTokens: 2_000,
  outputTokens: 1_500,
  reasoningTokens: 500,
};
/** By hand, at $3 input, $0.30 cache reads, $3.75 cache writes, $15 output a million: 2k×3 + 6k×0.3 + 2k×3.75 + 1.5k×15. */
const CLAUDE_COST = (2_000 * 3 + 6_000 * 0.3 + 2_000 * 3.75 + 1_500 * 15) / 1e6;

/** What a Gemini 2.5 Flash response reports: 10k input (4k cached), 2k output (1.2k thinking). */
const GEMINI_USAGE: Usage = {
  inputTokens: 10_000,
  cachedInputTokens: 4_000,
  outputTokens: 2_000,
  reasoningTokens: 1_200,
};
/** By hand, at $0.30 input, $0.03 cached, $2.50 output a million. */
const GEMINI_COST = (6_000 * 0.3 + 4_000 * 0.03 + 2_000 * 2.5) / 1e6;

const claude = () => providerModel("anthropic", "claude-sonnet-4-5-20250929", CLAUDE_USAGE);
const gemini = () => providerModel("google", "gemini-2.5-flash", GEMINI_USAGE);

const work = defineTool({
  name: "work",
  description: "Does a small piece of work.",
  parameters: z.object({}),
  handler: async () => ({ done: true }),
});

let openai: FakeOpenAI;

function costAgents(baseURL: string): Agent[] {
  const common = { instructions: "Follow your script.", scriptFromInput: true, maxSteps: 50 };
  return [
    defineAgent({ ...common, name: "claude-worker", model: claude(), tools: [work] }),
    defineAgent({ ...common, name: "gemini-worker", model: gemini(), tools: [work] }),
    defineAgent({ ...common, name: "gemini-lead", model: gemini(), tools: parentTools() }),
    defineAgent({
      name: "openai-worker",
      instructions: "Work, then say so.",
      model: openaiModel({ baseURL, apiKey: "test", model: "gpt-4o-mini" }),
      tools: [work],
    }),
  ];
}

it.beforeAll(async ({ pfx }) => {
  openai = await startFakeOpenAI({
    scripts: { "gpt-4o-mini": [{ call: [{ tool: "work", args: {} }] }, { say: "worked" }] },
  });
  await pfx.startWorker({ agents: costAgents(openai.baseURL), concurrency: 10 });
});
afterAll(async () => {
  await openai?.close();
});

async function settled(fx: EngineFixture, runId: string): Promise<RunResult> {
  const result = await fx.errand.result(runId, { waitMs: 120_000 });
  if (result === undefined) throw new Error(`run ${runId} did not settle`);
  return result;
}

function responses(events: readonly RunEvent[]) {
  return events.flatMap((event) => (event.type === "model-responded" ? [event.data] : []));
}

const workScript = (steps: number) => ({
  script: [
    ...Array.from({ length: steps }, () => ({ call: [{ tool: "work", args: {} }] })),
    { say: "done" },
  ],
});

describe("a run's costUsd, on each provider's prices", () => {
  it("is the price table times its logged usage, cache reads, cache writes and reasoning included", async ({
    fx,
  }) => {
    const onClaude = await fx.errand.fire({ agent: "claude-worker", input: workScript(1) });
    const onGemini = await fx.errand.fire({ agent: "gemini-worker", input: workScript(1) });
    const onOpenAI = await fx.errand.fire({ agent: "openai-worker", input: "work" });

    const claudeResult = await settled(fx, onClaude.runId);
    const claudeSteps = responses(await fx.errand.store.readLog(onClaude.runId));
    expect(claudeSteps).toHaveLength(2);
    for (const step of claudeSteps) {
      expect(step.usage).toEqual(CLAUDE_USAGE);
      expect(step.costUsd).toBeCloseTo(CLAUDE_COST, 9);
    }
    expect(claudeResult.costUsd).toBeCloseTo(2 * CLAUDE_COST, 9);
    expect(claudeResult.usage).toMatchObject({
      cacheWriteTokens: 4_000,
      cachedInputTokens: 12_000,
    });

    const geminiResult = await settled(fx, onGemini.runId);
    for (const step of responses(await fx.errand.store.readLog(onGemini.runId))) {
      expect(step.costUsd).toBeCloseTo(GEMINI_COST, 9);
    }
    expect(geminiResult.costUsd).toBeCloseTo(2 * GEMINI_COST, 9);

    // gpt-4o-mini at $0.15 input, $0.075 cached, $0.60 output a million; the fake's second request reads from its cache.
    const openaiResult = await settled(fx, onOpenAI.runId);
    const openaiSteps = responses(await fx.errand.store.readLog(onOpenAI.runId));
    expect(openaiSteps).toHaveLength(2);
    expect(openaiSteps[1]?.usage.cachedInputTokens).toBeGreaterThan(0);
    for (const { usage, costUsd } of openaiSteps) {
      const cached = usage.cachedInputTokens ?? 0;
      const byHand =
        ((usage.inputTokens - cached) * 0.15 + cached * 0.075 + usage.outputTokens * 0.6) / 1e6;
      expect(costUsd).toBeCloseTo(byHand, 9);
      expect(costUsd).toBeGreaterThan(0);
    }
    expect(openaiResult.costUsd).toBe(
      roundUsd(openaiSteps.reduce((sum, s) => sum + s.costUsd!, 0)),
    );
  });
});

/** The provider each agent here runs on. */
const PROVIDER_OF: Record<string, string> = {
  "gemini-lead": "google",
  "gemini-worker": "google",
  "claude-worker": "anthropic",
  "openai-worker": "openai",
};

function agentOf(events: readonly RunEvent[]): string {
  const [queued] = events;
  return queued?.type === "run-queued" ? queued.data.agent : "";
}

describe("a tree budget across providers", () => {
  it("stops a tree whose runs spend on several provider keys, counting every one", async ({
    fx,
  }) => {
    // The lead runs on Gemini; each Claude or Gemini child alone would spend 20 responses, far past the budget.
    const children = [
      { agent: "claude-worker", input: workScript(20) },
      { agent: "gemini-worker", input: workScript(20) },
      { agent: "openai-worker", input: "work" },
    ];
    const limit = 8 * CLAUDE_COST;
    const { runId: root } = await fx.errand.fire({
      agent: "gemini-lead",
      input: {
        script: [
          { call: [{ tool: "spawn_agents", args: { agents: children } }] },
          { call: [{ tool: "collect_agents", args: { wait: true } }] },
          { say: "done" },
        ],
      },
      budget: { costUsd: limit },
    });

    const result = await settled(fx, root);
    const kids = await fx.redis.zrange(fx.errand.keys.children(root), 0, -1);
    expect(kids).toHaveLength(3);
    const logs = await Promise.all([root, ...kids].map((runId) => fx.errand.store.readLog(runId)));
    const all = logs.flatMap(responses);
    const spent = roundUsd(all.reduce((sum, step) => sum + (step.costUsd ?? 0), 0));
    const tree = result.budget?.tree;
    expect(tree?.exhausted).toBe("costUsd");
    expect(tree?.spent.costUsd).toBe(spent); // every provider's responses debited, none twice
    expect(spent).toBeGreaterThanOrEqual(limit);
    // Past the limit by at most one response of each of the four runs.
    expect(spent).toBeLessThan(limit + 4 * CLAUDE_COST);
    // Gemini's responses (the lead's) could not exhaust it alone: Claude's counted on the same budget.
    const spentOn = new Set(
      logs.flatMap((events) =>
        responses(events).length > 0 ? [PROVIDER_OF[agentOf(events)]] : [],
      ),
    );
    expect(spentOn).toContain("google");
    expect(spentOn).toContain("anthropic");
    const stopped = await Promise.all(kids.map((runId) => settled(fx, runId)));
    for (const child of stopped) {
      if (child.status !== "succeeded") expect(child.error?.code).toBe("budget_exceeded");
    }
    const byAgent = new Map(
      logs.slice(1).map((events, index) => [agentOf(events), stopped[index]]),
    );
    expect(byAgent.get("claude-worker")?.error?.code).toBe("budget_exceeded");
  });
});
