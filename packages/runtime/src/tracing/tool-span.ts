/**
 * `execute_tool {tool}`: one INTERNAL span per tool a model's call ran,
 * active while the handler runs (so runs a tool fires are its children).
 */
import type { ToolCall } from "@errand/core";
import { SpanKind } from "@opentelemetry/api";
import { setContentAttribute } from "./content.js";
import { GEN_AI, runtimeTracer } from "./gen-ai.js";
import { inSpan } from "./spans.js";

/**
 * Runs `handler` for `call` inside its `execute_tool` span; with
 * `recordContent`, the span carries the call's arguments and what the
 * handler returned (redacted).
 */
export function inToolSpan(
  call: ToolCall,
  recordContent: boolean,
  handler: () => Promise<unknown>,
): Promise<unknown> {
  const attributes = {
    [GEN_AI.operationName]: "execute_tool",
    [GEN_AI.toolName]: call.name,
    [GEN_AI.toolType]: "function",
    [GEN_AI.toolCallId]: call.callId,
  };
  const options = { kind: SpanKind.INTERNAL, attributes };
  return inSpan(runtimeTracer, `execute_tool ${call.name}`, options, async (span) => {
    setContentAttribute(span, recordContent, GEN_AI.toolCallArguments, () => call.args);
    const value = await handler();
    setContentAttribute(span, recordContent, GEN_AI.toolCallResult, () => value);
    return value;
  });
}
