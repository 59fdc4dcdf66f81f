/**
 * A streamed Responses API answer folded back into its response: the
 * terminal event (`response.completed`, `response.incomplete` or
 * `response.failed`) carries the whole response, read as a non-streamed one.
 * Text, refusal and function-call argument pieces go to the listener as they
 * arrive; a function call is numbered among the answer's calls in the order
 * its item is added.
 */
import { isObject, kindOf, malformed } from "../answer-fields.js";
import { type DeltaListener, endedEarly, type StreamFold } from "./stream.js";

const TERMINAL_EVENTS = new Set(["response.completed", "response.incomplete", "response.failed"]);
const TEXT_EVENTS = new Set(["response.output_text.delta", "response.refusal.delta"]);

/** A fold of the events of one streamed Responses API answer. */
export function responsesStreamFold(onDelta: DeltaListener): StreamFold {
  /** The call number of each function-call item, by its output index. */
  const callOfItem = new Map<unknown, number>();
  let response: unknown;

  return {
    add(event) {
      if (!isObject(event)) throw malformed(`a streamed event is ${kindOf(event)}`);
      const { type } = event;
      if (typeof type !== "string") return;
      if (TERMINAL_EVENTS.has(type)) {
        response = event.response;
      } else if (TEXT_EVENTS.has(type) && typeof event.delta === "string") {
        if (event.delta !== "") onDelta?.({ type: "text", text: event.delta });
      } else if (type === "response.output_item.added" && isObject(event.item)) {
        const { item } = event;
        if (item.type !== "function_call") return;
        const index = callOfItem.size;
        callOfItem.set(event.output_index, index);
        onDelta?.({
          type: "tool-arguments",
          index,
          ...(typeof item.call_id === "string" ? { callId: item.call_id } : {}),
          ...(typeof item.name === "string" ? { name: item.name } : {}),
          text: "",
        });
      } else if (type === "response.function_call_arguments.delta") {
        const index = callOfItem.get(event.output_index);
        if (index !== undefined && typeof event.delta === "string" && event.delta !== "") {
          onDelta?.({ type: "tool-arguments", index, text: event.delta });
        }
      }
    },
    answer() {
      if (response === undefined) throw endedEarly();
      return response;
    },
  };
}
