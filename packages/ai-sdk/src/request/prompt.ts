/**
 * A run's transcript as an AI SDK prompt. Each earlier step goes back as the
 * parts its `model-responded` logged, in their order, each with the provider
 * metadata it came with as its `providerOptions`: Anthropic's thinking (text
 * and `signature`) and redacted thinking (`redactedData`), Gemini's
 * `thoughtSignature` on a text or a call, the Responses API's item ids and
 * encrypted reasoning. Because those parts come from the run's log, a run
 * resumed on another worker sends exactly what an uninterrupted run would
 * (docs/architecture/ai-sdk.md#provider-state). Consecutive tool results go in one
 * tool message, as the providers group them.
 */
import type { OutputItem, ToolCall } from "@errand/core";
import type { TranscriptMessage } from "@errand/runtime";
import type { AssistantPart, PromptMessage, ProviderData } from "../language-model.js";

type AssistantMessage = Extract<TranscriptMessage, { role: "assistant" }>;

function withOptions<Part extends AssistantPart>(
  part: Part,
  metadata: ProviderData | undefined,
): Part {
  return metadata === undefined ? part : { ...part, providerOptions: metadata };
}

function toolCallPart(call: ToolCall, metadata?: ProviderData): AssistantPart {
  return withOptions(
    { type: "tool-call", toolCallId: call.callId, toolName: call.name, input: call.args },
    metadata,
  );
}

/** The part an output item stands for; `undefined` for an item whose call or text is not in the step. */
function itemPart(item: OutputItem, message: AssistantMessage): AssistantPart | undefined {
  const metadata = item.providerMetadata as ProviderData | undefined;
  switch (item.type) {
    case "reasoning":
      return withOptions(
        { type: "reasoning", text: item.text ?? item.summary.join("\n") },
        metadata,
      );
    case "message": {
      const text = item.text ?? message.content;
      return text === undefined ? undefined : withOptions({ type: "text", text }, metadata);
    }
    case "function_call": {
      const call = message.calls.find((candidate) => candidate.callId === item.callId);
      return call === undefined ? undefined : toolCallPart(call, metadata);
    }
  }
}

/**
 * The parts of an assistant message: its logged items in order (then any
 * call no item carried); without items, its text then its calls.
 */
function assistantParts(message: AssistantMessage): AssistantPart[] {
  const items = message.items ?? [];
  const parts: AssistantPart[] = [];
  if (items.length === 0 && message.content !== undefined && message.content !== "") {
    parts.push({ type: "text", text: message.content });
  }
  for (const item of items) {
    const part = itemPart(item, message);
    if (part !== undefined) parts.push(part);
  }
  const carried = new Set(
    items.flatMap((item) => (item.type === "function_call" ? [item.callId] : [])),
  );
  for (const call of message.calls) {
    if (!carried.has(call.callId)) parts.push(toolCallPart(call));
  }
  return parts;
}

/** The prompt for `messages`, a run's transcript. */
export function toPrompt(messages: readonly TranscriptMessage[]): PromptMessage[] {
  const prompt: PromptMessage[] = [];
  for (const message of messages) {
    switch (message.role) {
      case "system":
        prompt.push({ role: "system", content: message.content });
        break;
      case "user":
        prompt.push({ role: "user", content: [{ type: "text", text: message.content }] });
        break;
      case "assistant":
        prompt.push({ role: "assistant", content: assistantParts(message) });
        break;
      case "tool": {
        const result = {
          type: "tool-result" as const,
          toolCallId: message.callId,
          toolName: message.name,
          output: { type: "text" as const, value: message.content },
        };
        const last = prompt.at(-1);
        if (last?.role === "tool") last.content.push(result);
        else prompt.push({ role: "tool", content: [result] });
        break;
      }
    }
  }
  return prompt;
}
