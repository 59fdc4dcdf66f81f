/**
 * The structured-output contract, usage and failure scenarios every AI SDK
 * lane must pass alike: each plays `ProviderTurn`s through `aiSdkModel` and
 * checks the events written, the result, what the language model was given
 * (the call options of each request) and what the provider answered.
 */

import type { CallOptions } from "@errand/ai-sdk";
import { NO_STRUCTURED_OUTPUT_MESSAGE } from "@errand/core/ops";
import type { AgentOptions } from "@errand/runtime";
import { invalidOutputMessage, STRUCTURED_OUTPUT_TOOL } from "@errand/runtime/ops";
import type { ProviderTurn } from "@errand/testing";
import { expect } from "vitest";
import type { AiSdkLane, AiSdkPrepared } from "./ai-sdk-lanes.js";
import type { PlayedRun } from "./run-agent.js";
import { ada, addTool, Person, types } from "./scenarios.js";

/** What a scenario's checks read. */
interface Outcome {
  run: PlayedRun;
  prepared: AiSdkPrepared;
  lane: AiSdkLane;
}

/** One scenario, set up afresh for every lane. */
export interface AiSdkScenario {
  /** Also the model id its requests carry. */
  id: string;
  title: string;
  turns(lane: AiSdkLane): ProviderTurn[];
  setup(): { options: Partial<AgentOptions>; check(outcome: Outcome): void };
}

const record = (args: unknown, think = false): ProviderTurn => ({
  call: [{ tool: STRUCTURED_OUTPUT_TOOL, args }],
  think,
});

/** The tool results call `index` (from 0) gave the model, as `{ toolCallId, value }`. */
function toolResults(calls: readonly CallOptions[], index: number) {
  return (calls[index]?.prompt ?? [])
    .flatMap((message) => (message.role === "tool" ? message.content : []))
    .map((part) => ({ toolCallId: part.toolCallId, value: part.output.value }));
}

function callIds(run: PlayedRun, step: number): string[] {
  return run.state.steps.find((s) => s.step === step)?.calls.map((call) => call.callId) ?? [];
}

export const AI_SDK_SCENARIOS: readonly AiSdkScenario[] = [
  {
    id: "recorded-at-once",
    title: "structured output offered once, strict, and recorded at once",
    turns: () => [record(ada)],
    setup: () => ({
      options: { outputSchema: Person },
      check({ run, prepared }) {
        expect(types(run)).toEqual(["model-responded", "output-recorded", "finished"]);
        expect(run.result).toMatchObject({ status: "succeeded", output: ada });
        expect(prepared.calls).toHaveLength(1);
        expect(prepared.calls[0]?.tools).toEqual([
          expect.objectContaining({ type: "function", name: STRUCTURED_OUTPUT_TOOL, strict: true }),
        ]);
      },
    }),
  },
  {
    id: "invalid-then-valid",
    title: "structured output invalid, refused with the exact message, then valid",
    turns: () => [record({ name: "Ada", age: "36" }), record(ada)],
    setup: () => ({
      options: { outputSchema: Person },
      check({ run, prepared }) {
        const issues = ["age: expected number, received string"];
        expect(types(run)).toEqual([
          "model-responded",
          "refused",
          "model-responded",
          "output-recorded",
          "finished",
        ]);
        expect(toolResults(prepared.calls, 1)).toEqual([
          {
            toolCallId: callIds(run, 1)[0],
            value: invalidOutputMessage(STRUCTURED_OUTPUT_TOOL, issues),
          },
        ]);
        expect(run.result).toMatchObject({ status: "succeeded", output: ada });
      },
    }),
  },
  {
    id: "calls-after-recorded",
    title: "a call after the recorded output is refused with the exact message, never run",
    turns: () => [
      {
        call: [
          { tool: STRUCTURED_OUTPUT_TOOL, args: ada },
          { tool: "add", args: { a: 1, b: 2 } },
        ],
      },
    ],
    setup() {
      const { tool, calls } = addTool();
      return {
        options: { tools: [tool], outputSchema: Person },
        check({ run }) {
          expect(types(run)).toEqual(["model-responded", "output-recorded", "refused", "finished"]);
          expect(run.events[2]?.data).toMatchObject({
            name: "add",
            reason: "output-already-recorded",
            message:
              "Error: structured output already recorded: the run is complete, so add is not executed.",
          });
          expect(calls).toEqual([]);
        },
      };
    },
  },
  {
    id: "text-without-report",
    title: "a finish without a report is no_structured_output",
    turns: () => [{ say: "Ada is 36." }, record(ada)],
    setup: () => ({
      options: { outputSchema: Person },
      check({ run, prepared }) {
        expect(types(run)).toEqual(["model-responded", "finished"]);
        expect(run.result).toMatchObject({
          status: "failed",
          text: "Ada is 36.",
          error: { code: "no_structured_output", message: NO_STRUCTURED_OUTPUT_MESSAGE },
        });
        expect(prepared.calls).toHaveLength(1);
      },
    }),
  },
  {
    id: "thinking-then-tool",
    title:
      "thinking and a tool call, the thinking sent back with its provider metadata, then the output",
    turns: (lane) => [
      { call: [{ tool: "add", args: { a: 2, b: 3 } }], think: lane.keepsThinking },
      record(ada, lane.keepsThinking),
    ],
    setup() {
      const { tool, calls } = addTool();
      return {
        options: { tools: [tool], outputSchema: Person },
        check({ run, prepared, lane }) {
          expect(calls).toEqual([{ a: 2, b: 3 }]);
          expect(toolResults(prepared.calls, 1)).toEqual([
            { toolCallId: callIds(run, 1)[0], value: '{"sum":5}' },
          ]);
          expect(run.result).toMatchObject({ status: "succeeded", output: ada });
          if (!lane.keepsThinking) return;
          const step1 = run.events[0];
          if (step1?.type !== "model-responded") throw new Error("step 1 did not respond");
          const items = step1.data.items ?? [];
          expect(items.some((item) => item.providerMetadata !== undefined)).toBe(true);
          const sentBack = prepared.calls[1]?.prompt.find(
            (message) => message.role === "assistant",
          );
          const parts = (sentBack?.content ?? []) as { providerOptions?: unknown }[];
          const withOptions = parts.map((part) => part.providerOptions);
          expect(withOptions.filter(Boolean)).toEqual(
            items.flatMap((item) => (item.providerMetadata ? [item.providerMetadata] : [])),
          );
        },
      };
    },
  },
  {
    id: "usage-summed",
    title: "usage summed over the steps, cache reads, cache writes and reasoning included",
    turns: (lane) => [
      { call: [{ tool: "add", args: { a: 1, b: 1 } }], think: lane.keepsThinking },
      record(ada, lane.keepsThinking),
    ],
    setup() {
      const { tool } = addTool();
      return {
        options: { tools: [tool], outputSchema: Person },
        check({ run, prepared }) {
          const reported = prepared.reportedUsage();
          expect(reported).toHaveLength(2);
          const sum = (
            field:
              | "inputTokens"
              | "outputTokens"
              | "cachedInputTokens"
              | "cacheWriteTokens"
              | "reasoningTokens",
          ) => reported.reduce((total, usage) => total + (usage[field] ?? 0), 0);
          expect(run.result?.usage).toMatchObject({
            inputTokens: sum("inputTokens"),
            outputTokens: sum("outputTokens"),
            cachedInputTokens: sum("cachedInputTokens"),
          });
          expect(run.result?.usage.cacheWriteTokens ?? 0).toBe(sum("cacheWriteTokens"));
          expect(run.result?.usage.reasoningTokens ?? 0).toBe(sum("reasoningTokens"));
          expect(sum("cachedInputTokens")).toBeGreaterThan(0);
        },
      };
    },
  },
  {
    id: "rate-limited",
    title: "a 429 with retry-after, waited as asked, then success",
    turns: () => [{ fail: "slow down", status: 429, retryAfterSeconds: 0.25 }, record(ada)],
    setup: () => ({
      options: { outputSchema: Person },
      check({ run, prepared }) {
        expect(prepared.statuses).toEqual([429, 200]);
        expect(run.waits).toEqual([250]);
        expect(run.result).toMatchObject({ status: "succeeded", output: ada });
      },
    }),
  },
  {
    id: "overloaded",
    title: "an overloaded provider (5xx) is retried by the run's policy",
    turns: (lane) => [{ fail: "Overloaded", status: lane.overloadStatus }, record(ada)],
    setup: () => ({
      options: { outputSchema: Person },
      check({ run, prepared, lane }) {
        expect(prepared.statuses).toEqual([lane.overloadStatus, 200]);
        expect(run.waits).toHaveLength(1);
        expect(run.result).toMatchObject({ status: "succeeded", output: ada });
      },
    }),
  },
  {
    id: "bad-request",
    title: "a 400 is not retried: the run fails model_error at once",
    turns: () => [{ fail: "temperature: not supported with thinking", status: 400 }, record(ada)],
    setup: () => ({
      options: { outputSchema: Person },
      check({ run, prepared }) {
        expect(prepared.statuses).toEqual([400]);
        expect(run.waits).toEqual([]);
        expect(types(run)).toEqual(["failed"]);
        expect(run.result).toMatchObject({
          status: "failed",
          error: { code: "model_error", retryable: false },
        });
        expect(run.result?.error?.message).toContain("(400)");
      },
    }),
  },
  {
    id: "malformed",
    title: "an answer the adapter cannot read fails model_error naming what is missing",
    turns: (lane) => [{ malformed: lane.malformedBody }],
    setup: () => ({
      options: { outputSchema: Person },
      check({ run, prepared, lane }) {
        expect(prepared.statuses.filter((status) => status !== 200)).toEqual([]);
        expect(run.waits).toEqual([]);
        expect(types(run)).toEqual(["failed"]);
        expect(run.result).toMatchObject({
          status: "failed",
          error: { code: "model_error", retryable: false },
        });
        const message = run.result?.error?.message ?? "";
        expect(message).toMatch(/^the model's answer is malformed: /);
        expect(message).toContain(lane.malformedNames);
        expect(message).not.toMatch(/TypeError|Cannot read properties/);
      },
    }),
  },
];
