/**
 * A streamed Chat Completions answer (`chat.completion.chunk`s) folded back
 * into the completion the non-streaming API sends: content and refusal
 * joined, each tool call's id, name and arguments gathered by its `index`,
 * the finish reason, and the usage of the last chunk (asked for with
 * `stream_options.include_usage`). Content and argument pieces go to the
 * listener as they arrive.
 */
import { isObject, kindOf, malformed } from "../answer-fields.js";
import { type DeltaListener, endedEarly, type StreamFold } from "./stream.js";

interface CallSoFar {
  id?: string;
  type?: unknown;
  name?: string;
  arguments: string;
}

/** A fold of the chunks of one streamed Chat Completions answer. */
export function chatStreamFold(onDelta: DeltaListener): StreamFold {
  let content: string | undefined;
  let refusal: string | undefined;
  const calls: CallSoFar[] = [];
  let finish: string | undefined;
  let usage: unknown;

  function addCall(entry: unknown, position: number): void {
    if (!isObject(entry)) throw malformed(`a streamed tool call is ${kindOf(entry)}`);
    const index = typeof entry.index === "number" ? entry.index : position;
    const known = calls[index];
    const call = known ?? { arguments: "" };
    calls[index] = call;
    const fn = isObject(entry.function) ? entry.function : {};
    const fresh: { callId?: string; name?: string } = {};
    if (typeof entry.id === "string" && call.id === undefined) call.id = fresh.callId = entry.id;
    if (entry.type !== undefined) call.type = entry.type;
    if (typeof fn.name === "string" && call.name === undefined) call.name = fresh.name = fn.name;
    const text = typeof fn.arguments === "string" ? fn.arguments : "";
    call.arguments += text;
    if (text !== "" || known === undefined) {
      onDelta?.({ type: "tool-arguments", index, ...fresh, text });
    }
  }

  return {
    add(chunk) {
      if (!isObject(chunk)) throw malformed(`a streamed chunk is ${kindOf(chunk)}`);
      if (chunk.usage !== undefined && chunk.usage !== null) usage = chunk.usage;
      const choice: unknown = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
      if (!isObject(choice)) return;
      const delta = isObject(choice.delta) ? choice.delta : {};
      for (const field of ["content", "refusal"] as const) {
        const text = delta[field];
        if (typeof text !== "string" || text === "") continue;
        if (field === "content") content = (content ?? "") + text;
        else refusal = (refusal ?? "") + text;
        onDelta?.({ type: "text", text });
      }
      if (Array.isArray(delta.tool_calls)) delta.tool_calls.forEach(addCall);
      if (typeof choice.finish_reason === "string") finish = choice.finish_reason;
    },
    answer() {
      if (finish === undefined) throw endedEarly();
      const toolCalls = calls.flatMap((call) =>
        call === undefined
          ? []
          : [
              {
                id: call.id,
                type: call.type,
                function: { name: call.name, arguments: call.arguments },
              },
            ],
      );
      return {
        choices: [
          {
            message: {
              content,
              refusal,
              ...(toolCalls.length === 0 ? {} : { tool_calls: toolCalls }),
            },
            finish_reason: finish,
          },
        ],
        usage,
      };
    },
  };
}
