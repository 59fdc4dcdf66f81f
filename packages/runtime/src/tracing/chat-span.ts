/**
 * `chat {model}`: one CLIENT span per model request (each retry is a request
 * of its own), with the GenAI attributes of the request and its response.
 */
import { type Span, SpanKind } from "@opentelemetry/api";
import type { Model, ModelRequest, ModelResponse } from "../model.js";
import { setContentAttribute } from "./content.js";
import { GEN_AI, modelIdentity, runtimeTracer } from "./gen-ai.js";
import { inSpan } from "./spans.js";

/** `model`'s answer to `request`, its usage and finish (and with `recordContent` both texts) on `span`. */
async function respondRecorded(
  span: Span,
  model: Model,
  request: ModelRequest,
  signal: AbortSignal,
  recordContent: boolean,
): Promise<ModelResponse> {
  setContentAttribute(span, recordContent, GEN_AI.inputMessages, () => request.messages);
  const response = await model.respond(request, signal);
  const { usage } = response;
  span.setAttributes({
    [GEN_AI.inputTokens]: usage.inputTokens,
    [GEN_AI.outputTokens]: usage.outputTokens,
    [GEN_AI.finishReasons]: [response.finish],
    ...(usage.cachedInputTokens === undefined
      ? {}
      : { [GEN_AI.cacheReadInputTokens]: usage.cachedInputTokens }),
    ...(usage.cacheWriteTokens === undefined
      ? {}
      : { [GEN_AI.cacheCreationInputTokens]: usage.cacheWriteTokens }),
    ...(usage.reasoningTokens === undefined
      ? {}
      : { [GEN_AI.reasoningOutputTokens]: usage.reasoningTokens }),
    ...(response.responseId === undefined ? {} : { [GEN_AI.responseId]: response.responseId }),
  });
  setContentAttribute(span, recordContent, GEN_AI.outputMessages, () => [
    { role: "assistant", text: response.text, calls: response.calls },
  ]);
  return response;
}

/** `model`'s answer to `request` in a `chat {model}` span; a span that records nothing is left bare. */
function tracedRespond(
  model: Model,
  request: ModelRequest,
  signal: AbortSignal,
  recordContent: boolean,
): Promise<ModelResponse> {
  const identity = modelIdentity(model, request);
  const attributes = {
    [GEN_AI.operationName]: "chat",
    [GEN_AI.providerName]: identity.provider,
    [GEN_AI.requestModel]: identity.model,
    [GEN_AI.conversationId]: request.runId,
  };
  const options = { kind: SpanKind.CLIENT, attributes };
  // `Promise.resolve`: a model that answers with a value rather than a promise is awaited as
  // always; a promise passes through as it is.
  return inSpan(runtimeTracer, `chat ${identity.model}`, options, (span) =>
    span.isRecording()
      ? respondRecorded(span, model, request, signal, recordContent)
      : Promise.resolve(model.respond(request, signal)),
  );
}

/**
 * `model`, each of whose requests is a `chat {model}` span; with
 * `recordContent`, the span carries the transcript sent and the answer
 * (redacted). Everything but `respond` is `model`'s own.
 */
export function chatTracedModel(model: Model, recordContent: boolean): Model {
  return {
    name: model.name,
    supportsTools: model.supportsTools,
    respond: (request, signal) => tracedRespond(model, request, signal, recordContent),
  };
}
