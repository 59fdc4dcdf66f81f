/**
 * The agents the engine's tests run, in test processes and in child worker
 * processes alike. Every run plays its script from `input.script`. Two
 * counters in Redis make "exactly once" provable across processes: how many
 * times the side-effecting `bump` tool ran for a run, and how many times the
 * model was asked for each step of a run. Waitpoints: `ask` (the built-in
 * tool, with an answer schema), `ask_briefly` and `ask_or_fail` (timing out
 * after {@link TEST_ASK_TIMEOUT_MS}, answering so or failing the run) and
 * `approve` (a tool of one's own around `waitForAnswer`, counting the answers
 * it was handed). Test-only: not exported.
 */

import {
  type Agent,
  askTool,
  defineAgent,
  defineTool,
  type Model,
  openaiModel,
  scriptedModel,
  waitForAnswer,
} from "@errand/runtime";
import type { Redis } from "ioredis";
import { z } from "zod";

/** The Redis keys of the test counters under `prefix`. */
export function testCounterKeys(prefix: string) {
  return {
    /** How many times `bump` ran for the run. */
    toolRuns: (runId: string) => `${prefix}:test:bump:${runId}`,
    /** How many times `approve` was handed its answer for the run. */
    answersHanded: (runId: string) => `${prefix}:test:answers:${runId}`,
    /** How many times the model was asked for `step` of the run. */
    modelRequests: (runId: string, step: number) => `${prefix}:test:model:${runId}:${step}`,
  };
}

/** What the test agents need. */
export interface TestAgentsOptions {
  redis: Redis;
  prefix: string;
  /** Told of every model request before it is answered, and of each that was aborted. */
  onModelRequest?(event: { runId: string; step: number; aborted: boolean }): void;
  /** The version every test agent is given; default: their digest. */
  version?: string;
}

/** A scripted model that counts its requests in Redis; `supportsTools` as given. */
function countingModel(options: TestAgentsOptions, supportsTools: boolean): Model {
  const counters = testCounterKeys(options.prefix);
  const scripted = scriptedModel();
  return {
    name: supportsTools ? "counting-scripted" : "text-only-scripted",
    supportsTools,
    async respond(request, signal) {
      await options.redis.incr(counters.modelRequests(request.runId, request.step));
      options.onModelRequest?.({ runId: request.runId, step: request.step, aborted: false });
      try {
        return await scripted.respond(request, signal);
      } catch (error) {
        if (signal.aborted) {
          options.onModelRequest?.({ runId: request.runId, step: request.step, aborted: true });
        }
        throw error;
      }
    },
  };
}

/** The names of the test agents. */
export const TEST_AGENTS = {
  /** No output schema: answers with text. */
  plain: "plain",
  /** Must record `{ answer: string }`. */
  structured: "structured",
  /** On a model that cannot call tools. */
  textOnly: "text-only",
} as const;

/** The schema of the structured agent. */
export const AnswerSchema = z.object({ answer: z.string() });

/** The answer schema of the test agents' `ask` tool. */
const ApprovalSchema = z.object({ approve: z.boolean(), note: z.string() });

/** How long `ask_briefly` and `ask_or_fail` wait for an answer. */
const TEST_ASK_TIMEOUT_MS = 1_500;

/** The waitpoint tools of the test agents (see the module's header). */
function waitpointTools(options: TestAgentsOptions) {
  const counters = testCounterKeys(options.prefix);
  const approve = defineTool({
    name: "approve",
    description: "Asks for an approval and waits for it.",
    parameters: z.object({}),
    handler: async (_args, ctx) => {
      const outcome = waitForAnswer(ctx, { question: "Approve the test run?" });
      await options.redis.incr(counters.answersHanded(ctx.runId));
      return outcome;
    },
  });
  return [
    approve,
    askTool({ answerSchema: ApprovalSchema }),
    askTool({ name: "ask_briefly", timeoutMs: TEST_ASK_TIMEOUT_MS }),
    askTool({ name: "ask_or_fail", timeoutMs: TEST_ASK_TIMEOUT_MS, onTimeout: "fail" }),
  ];
}

/** The test agents: `plain`, `structured` and `text-only`, each with the `bump` tool and the waitpoint tools. */
export function testAgents(options: TestAgentsOptions): Agent[] {
  const counters = testCounterKeys(options.prefix);
  const bump = defineTool({
    name: "bump",
    description: "Increments the run's side-effect counter (a side effect that must happen once).",
    parameters: z.object({}),
    handler: async (_args, ctx) => ({
      count: await options.redis.incr(counters.toolRuns(ctx.runId)),
    }),
  });
  const common = {
    instructions: "Follow your script.",
    tools: [bump, ...waitpointTools(options)],
    scriptFromInput: true,
    maxSteps: 8,
    ...(options.version === undefined ? {} : { version: options.version }),
  };
  return [
    defineAgent({ ...common, name: TEST_AGENTS.plain, model: countingModel(options, true) }),
    defineAgent({
      ...common,
      name: TEST_AGENTS.structured,
      model: countingModel(options, true),
      outputSchema: AnswerSchema,
    }),
    defineAgent({ ...common, name: TEST_AGENTS.textOnly, model: countingModel(options, false) }),
  ];
}

/** The agent a worker process runs on a streaming model when given one (`streamingModelUrl`). */
export const STREAMER = "streamer";

/** {@link STREAMER} on `openaiModel({ stream: true })` at `baseURL`, asking for the model of its name. */
export function streamingAgent(baseURL: string): Agent {
  const model = openaiModel({ apiKey: "test", baseURL, model: STREAMER, stream: true });
  return defineAgent({ name: STREAMER, instructions: "Tell.", model });
}
