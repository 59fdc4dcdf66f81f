/**
 * The AI SDK's own mock language models (`MockLanguageModelV3` of AI SDK 6,
 * `MockLanguageModelV4` of AI SDK 7) playing `ProviderTurn`s as a provider
 * package would hand them over: reasoning with provider metadata, text,
 * tool calls with JSON text input, nested usage, `{ unified, raw }` finish
 * reasons, and failures as each version's own `APICallError`. The due turn is
 * read from the prompt (its assistant messages, plus the failures served).
 */
import { APICallError as APICallErrorV4 } from "@ai-sdk/provider";
import { APICallError as APICallErrorV3 } from "@ai-sdk/provider-v3";
import type { ProviderTurn } from "@errand/testing";
import { MockLanguageModelV4 } from "ai/test";
import { MockLanguageModelV3 } from "ai-v6/test";

/** The usage a mock answer reports for step `step`: made up, each count distinct. */
function usageOf(step: number, thinking: boolean) {
  const reasoning = thinking ? 7 + step : 0;
  return {
    inputTokens: { total: 300 + step, noCache: 100 + step, cacheRead: 150, cacheWrite: 50 },
    outputTokens: { total: 40 + reasoning, text: 40, reasoning },
  };
}

/** What a mock model answers, by the turn due. */
function mockAnswer(turn: ProviderTurn, step: number): unknown {
  if ("malformed" in turn) return turn.malformed;
  if ("fail" in turn) throw new Error("a failing turn is thrown, not answered");
  const content: Record<string, unknown>[] = [];
  if (turn.think) {
    content.push({
      type: "reasoning",
      text: `Step ${step}: thinking.`,
      providerMetadata: { mock: { signature: `mock-signature-${step}` } },
    });
  }
  if (turn.say !== undefined) content.push({ type: "text", text: turn.say });
  for (const [n, call] of (turn.call ?? []).entries()) {
    content.push({
      type: "tool-call",
      toolCallId: `mock_${step}_${n}`,
      toolName: call.tool,
      input: JSON.stringify(call.args),
    });
  }
  const calls = (turn.call ?? []).length > 0;
  return {
    content,
    finishReason: { unified: calls ? "tool-calls" : "stop", raw: calls ? "tool_use" : "stop" },
    usage: usageOf(step, turn.think === true),
    warnings: [],
  };
}

/** Where a mock model records what it answered: each answer, and each status (200, or a failure's). */
interface MockRecord {
  answers: unknown[];
  statuses: number[];
}

/** A mock model of `version` playing `turns`, recording what it answers in `record`. */
export function mockModel(
  version: "v3" | "v4",
  modelId: string,
  turns: readonly ProviderTurn[],
  record: MockRecord,
) {
  let failures = 0;
  const doGenerate = async (options: { prompt: { role: string }[] }) => {
    const answered = options.prompt.filter((message) => message.role === "assistant").length;
    const turn = turns[answered + failures] ?? { say: "" };
    if ("fail" in turn) {
      failures++;
      const status = turn.status ?? 500;
      record.statuses.push(status);
      const ErrorClass = version === "v3" ? APICallErrorV3 : APICallErrorV4;
      throw new ErrorClass({
        message: turn.fail,
        url: "mock://generate",
        requestBodyValues: {},
        statusCode: status,
        responseHeaders:
          turn.retryAfterSeconds === undefined
            ? {}
            : { "retry-after": String(turn.retryAfterSeconds) },
      });
    }
    const answer = mockAnswer(turn, answered + 1);
    record.answers.push(answer);
    record.statuses.push(200);
    return answer;
  };
  return version === "v3"
    ? new MockLanguageModelV3({ provider: "mock", modelId, doGenerate: doGenerate as never })
    : new MockLanguageModelV4({ provider: "mock", modelId, doGenerate: doGenerate as never });
}
