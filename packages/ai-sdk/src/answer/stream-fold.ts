/**
 * An AI SDK stream (`doStream`) folded back into the generate result
 * `doGenerate` would have given, which `read-result.ts` then reads by the
 * same rules: text and reasoning gathered by their block id, in the order
 * the blocks started, each with the provider metadata its parts carried
 * (Anthropic's thinking signature arrives on a reasoning delta, Gemini's
 * thought signature on a text or a call); tool calls from their `tool-call`
 * parts, at the place their input started; the finish reason, usage and
 * response id. Text pieces and tool-input pieces go to the request's
 * `onDelta` as they arrive. An `error` part rejects as the request would; a
 * stream that ends before its `finish` part is a retryable `model_error`.
 */
import type { ModelDelta } from "@errand/core";
import { ModelError } from "@errand/runtime";
import { isObject, kindOf, malformed } from "@errand/runtime/ops";
import { classifyAiSdkError } from "./classify-error.js";

type Fields = Record<string, unknown>;

/** One content part being gathered. */
interface OpenPart {
  part: Fields;
  /** The call's place among the answer's calls, for a tool call. */
  callIndex?: number;
}

/** Merges provider metadata: later fields of a provider win, earlier ones stay. */
function mergeMetadata(into: Fields, metadata: unknown): void {
  if (!isObject(metadata)) return;
  const merged = isObject(into.providerMetadata) ? { ...into.providerMetadata } : {};
  for (const [provider, fields] of Object.entries(metadata)) {
    const earlier = merged[provider];
    merged[provider] = isObject(earlier) && isObject(fields) ? { ...earlier, ...fields } : fields;
  }
  into.providerMetadata = merged;
}

/**
 * What failed in a stream (an `error` part, or the connection): the AI SDK's
 * errors as classified, anything else (Anthropic's `overloaded_error` event,
 * a dropped connection) a retryable `model_error`: the request is made again.
 */
function streamFailure(error: unknown): unknown {
  const classified = classifyAiSdkError(error);
  if (classified instanceof ModelError || classified !== error) return classified;
  const name = isObject(error) ? error.name : undefined;
  if (name === "AbortError" || name === "ResponseAborted") return error;
  const what = error instanceof Error ? error.message : JSON.stringify(error);
  return new ModelError(`the model's stream failed: ${what}`, { retryable: true, cause: error });
}

/** Folds the parts of one stream; {@link result} gives the generate result. */
class StreamFold {
  private readonly parts: OpenPart[] = [];
  private readonly byId = new Map<string, OpenPart>();
  private calls = 0;
  private finish: Fields | undefined;
  private responseId: unknown;

  constructor(private readonly onDelta: ((delta: ModelDelta) => void) | undefined) {}

  private open(key: string, part: Fields, callIndex?: number): OpenPart {
    const open: OpenPart = { part, ...(callIndex === undefined ? {} : { callIndex }) };
    this.parts.push(open);
    this.byId.set(key, open);
    return open;
  }

  private block(kind: "text" | "reasoning", chunk: Fields): OpenPart {
    const key = `${kind}:${String(chunk.id)}`;
    return this.byId.get(key) ?? this.open(key, { type: kind, text: "" });
  }

  private toolInput(chunk: Fields): void {
    const key = `call:${String(chunk.id)}`;
    const known = this.byId.get(key);
    const open = known ?? this.open(key, { type: "tool-call", input: "" }, this.calls++);
    const index = open.callIndex ?? 0;
    if (chunk.type === "tool-input-start") {
      this.onDelta?.({
        type: "tool-arguments",
        index,
        callId: String(chunk.id),
        ...(typeof chunk.toolName === "string" ? { name: chunk.toolName } : {}),
        text: "",
      });
    } else if (typeof chunk.delta === "string" && chunk.delta !== "") {
      this.onDelta?.({ type: "tool-arguments", index, text: chunk.delta });
    }
  }

  private toolCall(chunk: Fields): void {
    const key = `call:${String(chunk.toolCallId)}`;
    const known = this.byId.get(key);
    const { type: _type, ...call } = chunk;
    if (known !== undefined) {
      Object.assign(known.part, { type: "tool-call", ...call });
      return;
    }
    if (chunk.providerExecuted !== true) {
      const index = this.calls;
      this.onDelta?.({
        type: "tool-arguments",
        index,
        callId: String(chunk.toolCallId),
        ...(typeof chunk.toolName === "string" ? { name: chunk.toolName } : {}),
        text: typeof chunk.input === "string" ? chunk.input : "",
      });
    }
    this.open(key, { type: "tool-call", ...call }, this.calls++);
  }

  add(chunk: unknown): void {
    if (!isObject(chunk)) throw malformed(`a stream part is ${kindOf(chunk)}`);
    switch (chunk.type) {
      case "text-start":
      case "text-delta":
      case "text-end": {
        const { part } = this.block("text", chunk);
        mergeMetadata(part, chunk.providerMetadata);
        if (chunk.type === "text-delta" && typeof chunk.delta === "string" && chunk.delta !== "") {
          part.text = `${String(part.text)}${chunk.delta}`;
          this.onDelta?.({ type: "text", text: chunk.delta });
        }
        return;
      }
      case "reasoning-start":
      case "reasoning-delta":
      case "reasoning-end": {
        const { part } = this.block("reasoning", chunk);
        mergeMetadata(part, chunk.providerMetadata);
        if (typeof chunk.delta === "string") part.text = `${String(part.text)}${chunk.delta}`;
        return;
      }
      case "tool-input-start":
      case "tool-input-delta":
        this.toolInput(chunk);
        return;
      case "tool-call":
        this.toolCall(chunk);
        return;
      case "response-metadata":
        this.responseId = chunk.id;
        return;
      case "finish":
        this.finish = chunk;
        return;
      case "error":
        throw streamFailure(chunk.error);
      default:
        return;
    }
  }

  /** The generate result; a retryable `ModelError` when the stream ended before its finish. */
  result(): Fields {
    if (this.finish === undefined) {
      throw new ModelError("the model's stream ended before its answer did", { retryable: true });
    }
    return {
      content: this.parts.map(({ part }) => part),
      finishReason: this.finish.finishReason,
      usage: this.finish.usage,
      response: { id: this.responseId },
    };
  }
}

/** The generate result of `stream`, its deltas handed to `onDelta` as they arrive. */
export async function foldStream(
  stream: ReadableStream<unknown>,
  onDelta: ((delta: ModelDelta) => void) | undefined,
): Promise<Fields> {
  const fold = new StreamFold(onDelta);
  const reader = stream.getReader();
  try {
    for (;;) {
      let next: Awaited<ReturnType<typeof reader.read>>;
      try {
        next = await reader.read();
      } catch (error) {
        throw streamFailure(error);
      }
      if (next.done) break;
      fold.add(next.value);
    }
  } finally {
    reader.releaseLock();
  }
  return fold.result();
}
