/**
 * The names of the OpenTelemetry GenAI semantic conventions errand's spans
 * carry (`invoke_agent`, `chat`, `execute_tool`), and the provider and model
 * a {@link Model} stands for.
 */
import { trace } from "@opentelemetry/api";
import type { Model, ModelRequest } from "../model.js";

/** The tracer of the runtime's spans. */
export const runtimeTracer = trace.getTracer("@errand/runtime");

/** GenAI attribute keys. */
export const GEN_AI = {
  operationName: "gen_ai.operation.name",
  providerName: "gen_ai.provider.name",
  requestModel: "gen_ai.request.model",
  responseId: "gen_ai.response.id",
  finishReasons: "gen_ai.response.finish_reasons",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  cacheReadInputTokens: "gen_ai.usage.cache_read.input_tokens",
  cacheCreationInputTokens: "gen_ai.usage.cache_creation.input_tokens",
  reasoningOutputTokens: "gen_ai.usage.reasoning.output_tokens",
  inputMessages: "gen_ai.input.messages",
  outputMessages: "gen_ai.output.messages",
  agentName: "gen_ai.agent.name",
  conversationId: "gen_ai.conversation.id",
  toolName: "gen_ai.tool.name",
  toolType: "gen_ai.tool.type",
  toolCallId: "gen_ai.tool.call.id",
  toolCallArguments: "gen_ai.tool.call.arguments",
  toolCallResult: "gen_ai.tool.call.result",
} as const;

/** What a model is, as GenAI attributes name it. */
export interface ModelIdentity {
  /** `gen_ai.provider.name`: `openai`, or the model's own name (`scripted`). */
  provider: string;
  /** `gen_ai.request.model`: the model asked for. */
  model: string;
}

/**
 * The provider and model of `model` answering `request`: a name like
 * `openai:gpt-4o-mini` is split at its first colon; the model the agent names
 * (`request.model`) wins over the one in the name; a name without a colon
 * (`scripted`) is both.
 */
export function modelIdentity(model: Model, request?: Pick<ModelRequest, "model">): ModelIdentity {
  const colon = model.name.indexOf(":");
  const provider = colon < 0 ? model.name : model.name.slice(0, colon);
  const named = colon < 0 ? model.name : model.name.slice(colon + 1);
  return { provider, model: request?.model ?? named };
}
