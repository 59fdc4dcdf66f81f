/**
 * The conformance scenarios: each a run of an agent whose model turns are
 * played by the server under test, with what must come of it — the events
 * written, the result, the requests sent and the waits between retries —
 * whichever server and API shape played it.
 */
import { NO_STRUCTURED_OUTPUT_MESSAGE } from "@errand/core/ops";
import { type AgentOptions, defineTool } from "@errand/runtime";
import { invalidOutputMessage, STRUCTURED_OUTPUT_TOOL } from "@errand/runtime/ops";
import { expect } from "vitest";
import { z } from "zod";
import type { PlayedRun } from "./run-agent.js";
import type { Exchange, ServerLane } from "./server-lanes.js";
import type { Turn } from "./turns.js";

/** What a scenario's checks read. */
interface Outcome {
  run: PlayedRun;
  exchanges: Exchange[];
  lane: ServerLane;
}

/** One scenario, set up afresh for every lane. */
export interface Scenario {
  /** Also the model name its requests carry. */
  id: string;
  title: string;
  turns: Turn[];
  /** The agent's options (tools with fresh counters, schema) and the checks of one run of it. */
  setup(): { options: Partial<AgentOptions>; check(outcome: Outcome): void };
}

export const Person = z.object({ name: z.string(), age: z.number().int() });
export const ada = { name: "Ada", age: 36 };
const record = (args: unknown): Turn => ({ call: [{ tool: STRUCTURED_OUTPUT_TOOL, args }] });

/** An `add` tool (strict schema) that remembers its calls. */
export function addTool() {
  const calls: { a: number; b: number }[] = [];
  const tool = defineTool({
    name: "add",
    description: "Adds two numbers.",
    parameters: z.object({ a: z.number(), b: z.number() }),
    handler: (args) => {
      calls.push(args);
      return { sum: args.a + args.b };
    },
  });
  return { tool, calls };
}

export function types(run: PlayedRun): string[] {
  return run.events.map((event) => event.type);
}

/** The call ids of `step` as the model gave them. */
function callIds(run: PlayedRun, step: number): string[] {
  return run.state.steps.find((s) => s.step === step)?.calls.map((call) => call.callId) ?? [];
}

/** The tool messages of request number `index` (from 0), as sent. */
function toolMessages(exchanges: Exchange[], index: number) {
  return (exchanges[index]?.sent.messages ?? [])
    .filter((message) => message.role === "tool")
    .map(({ tool_call_id, content }) => ({ tool_call_id, content }));
}

/** A usage object of either API shape. */
interface WireUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens: number };
  completion_tokens_details?: { reasoning_tokens: number };
  input_tokens?: number;
  output_tokens?: number;
  input_tokens_details?: { cached_tokens: number };
  output_tokens_details?: { reasoning_tokens: number };
}

/** The usage an answer reported, read from its own body, in errand's terms. */
function reportedUsage(answer: unknown) {
  const usage = (answer as { usage: WireUsage }).usage;
  const details = (counts: { cached_tokens?: number; reasoning_tokens?: number } | undefined) =>
    counts ?? {};
  return {
    inputTokens: usage.prompt_tokens ?? usage.input_tokens ?? 0,
    outputTokens: usage.completion_tokens ?? usage.output_tokens ?? 0,
    cachedInputTokens:
      details(usage.prompt_tokens_details ?? usage.input_tokens_details).cached_tokens ?? 0,
    reasoningTokens:
      details(usage.completion_tokens_details ?? usage.output_tokens_details).reasoning_tokens ?? 0,
  };
}

function succeededWith(run: PlayedRun, expected: object) {
  expect(run.result).toMatchObject({ status: "succeeded", ...expected });
}

export const SCENARIOS: readonly Scenario[] = [
  {
    id: "recorded-at-once",
    title: "structured output recorded at once",
    turns: [record(ada)],
    setup: () => ({
      options: { outputSchema: Person },
      check({ run, exchanges }) {
        expect(types(run)).toEqual(["model-responded", "output-recorded", "finished"]);
        succeededWith(run, { output: ada });
        expect(exchanges).toHaveLength(1);
        expect(exchanges[0]?.sent.tools).toEqual([
          expect.objectContaining({ name: STRUCTURED_OUTPUT_TOOL, strict: true }),
        ]);
      },
    }),
  },
  {
    id: "invalid-then-valid",
    title: "structured output invalid, then valid",
    turns: [record({ name: "Ada", age: "36" }), record(ada)],
    setup: () => ({
      options: { outputSchema: Person },
      check({ run, exchanges }) {
        const issues = ["age: expected number, received string"];
        expect(types(run)).toEqual([
          "model-responded",
          "refused",
          "model-responded",
          "output-recorded",
          "finished",
        ]);
        expect(run.events[1]?.data).toMatchObject({ reason: "invalid-arguments", issues });
        expect(toolMessages(exchanges, 1)).toEqual([
          {
            tool_call_id: callIds(run, 1)[0],
            content: invalidOutputMessage(STRUCTURED_OUTPUT_TOOL, issues),
          },
        ]);
        succeededWith(run, { output: ada });
      },
    }),
  },
  {
    id: "text-without-report",
    title: "plain text without a report",
    turns: [{ say: "Ada is 36." }, record(ada)],
    setup: () => ({
      options: { outputSchema: Person },
      check({ run, exchanges }) {
        expect(types(run)).toEqual(["model-responded", "finished"]);
        expect(run.result).toMatchObject({
          status: "failed",
          text: "Ada is 36.",
          error: { code: "no_structured_output", message: NO_STRUCTURED_OUTPUT_MESSAGE },
        });
        expect(exchanges).toHaveLength(1);
      },
    }),
  },
  {
    id: "tool-then-answer",
    title: "a user tool, then an answer",
    turns: [{ call: [{ tool: "add", args: { a: 2, b: 3 } }] }, { say: "2 + 3 = 5." }],
    setup() {
      const { tool, calls } = addTool();
      return {
        options: { tools: [tool] },
        check({ run, exchanges }) {
          expect(types(run)).toEqual([
            "model-responded",
            "tool-called",
            "tool-result",
            "model-responded",
            "finished",
          ]);
          expect(calls).toEqual([{ a: 2, b: 3 }]);
          expect(toolMessages(exchanges, 1)).toEqual([
            { tool_call_id: callIds(run, 1)[0], content: '{"sum":5}' },
          ]);
          succeededWith(run, { text: "2 + 3 = 5." });
        },
      };
    },
  },
  {
    id: "parallel-calls",
    title: "parallel calls in one response, then the structured output",
    turns: [
      {
        call: [
          { tool: "add", args: { a: 1, b: 2 } },
          { tool: "add", args: { a: 3, b: 4 } },
        ],
      },
      record(ada),
    ],
    setup() {
      const { tool, calls } = addTool();
      return {
        options: { tools: [tool], outputSchema: Person },
        check({ run, exchanges }) {
          expect(calls).toEqual([
            { a: 1, b: 2 },
            { a: 3, b: 4 },
          ]);
          const [first, second] = callIds(run, 1);
          expect(first).not.toBe(second);
          expect(toolMessages(exchanges, 1)).toEqual([
            { tool_call_id: first, content: '{"sum":3}' },
            { tool_call_id: second, content: '{"sum":7}' },
          ]);
          succeededWith(run, { output: ada });
        },
      };
    },
  },
  {
    id: "rate-limited",
    title: "a 429 with retry-after, then success",
    turns: [{ fail: "slow down", status: 429, retryAfterSeconds: 0.25 }, record(ada)],
    setup: () => ({
      options: { outputSchema: Person },
      check({ run, exchanges, lane }) {
        expect(exchanges.map((exchange) => exchange.status)).toEqual([429, 200]);
        // mock-llm sends no headers: the run then backs off by its own policy.
        if (lane.sendsRetryAfter) expect(run.waits).toEqual([250]);
        else expect(run.waits).toEqual([expect.any(Number)]);
        succeededWith(run, { output: ada });
      },
    }),
  },
  {
    id: "server-error",
    title: "a 500, then success",
    turns: [{ fail: "upstream exploded", status: 500 }, record(ada)],
    setup: () => ({
      options: { outputSchema: Person },
      check({ run, exchanges }) {
        expect(exchanges.map((exchange) => exchange.status)).toEqual([500, 200]);
        expect(run.waits).toHaveLength(1);
        succeededWith(run, { output: ada });
      },
    }),
  },
  {
    id: "malformed",
    title: "a malformed answer fails the run at once",
    turns: [
      {
        malformed: {
          chat: { id: "chatcmpl-x", object: "chat.completion" },
          responses: { id: "resp_x", object: "response", status: "completed" },
        },
      },
    ],
    setup: () => ({
      options: { outputSchema: Person },
      check({ run, exchanges, lane }) {
        const problem = lane.api === "chat" ? "it has no choices" : "it has no output list";
        expect(types(run)).toEqual(["failed"]);
        expect(run.result).toMatchObject({
          status: "failed",
          error: {
            code: "model_error",
            message: `the model's answer is malformed: ${problem}`,
            retryable: false,
          },
        });
        expect(exchanges).toHaveLength(1);
      },
    }),
  },
  {
    id: "usage-summed",
    title: "usage summed over the steps, cached and reasoning tokens included",
    turns: [{ call: [{ tool: "add", args: { a: 1, b: 1 } }] }, record(ada)],
    setup() {
      const { tool } = addTool();
      return {
        options: {
          tools: [tool],
          outputSchema: Person,
          modelSettings: { reasoning: { effort: "low" } },
        },
        check({ run, exchanges }) {
          const reported = exchanges.map((exchange) => reportedUsage(exchange.answer));
          const sum = (field: keyof ReturnType<typeof reportedUsage>) =>
            reported.reduce((total, usage) => total + usage[field], 0);
          expect(run.result?.usage).toEqual({
            inputTokens: sum("inputTokens"),
            outputTokens: sum("outputTokens"),
            cachedInputTokens: sum("cachedInputTokens"),
            reasoningTokens: sum("reasoningTokens"),
          });
          expect(sum("cachedInputTokens")).toBeGreaterThan(0);
          expect(sum("reasoningTokens")).toBeGreaterThan(0);
        },
      };
    },
  },
  {
    id: "strict-ignored",
    title: "arguments a strict tool schema forbids are refused (the server ignores strict)",
    turns: [
      { call: [{ tool: "add", args: { a: "2", b: 3 } }] },
      { call: [{ tool: "add", args: { a: 2, b: 3 } }] },
      { say: "5" },
    ],
    setup() {
      const { tool, calls } = addTool();
      return {
        options: { tools: [tool] },
        check({ run, exchanges }) {
          expect(exchanges[0]?.sent.tools).toEqual([
            expect.objectContaining({ name: "add", strict: true }),
          ]);
          expect(run.events[1]).toMatchObject({
            type: "refused",
            data: { name: "add", reason: "invalid-arguments" },
          });
          expect(calls).toEqual([{ a: 2, b: 3 }]);
          expect(toolMessages(exchanges, 1)[0]?.content).toContain("invalid arguments for add");
          succeededWith(run, { text: "5" });
        },
      };
    },
  },
];
