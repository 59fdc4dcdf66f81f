/**
 * Minimal validation of a chat completions request: enough to answer a
 * malformed request with a 400 the way the real API does, not a full schema.
 */
import type { ChatCompletionRequest } from "./wire-types.js";

/** A valid request, or the reason it is not. */
export type RequestCheck =
  | { ok: true; request: ChatCompletionRequest }
  | { ok: false; message: string; param: string | null };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function invalid(message: string, param: string | null = null): RequestCheck {
  return { ok: false, message, param };
}

/** Checks that `body` has a model, a messages array of role-bearing objects, and only function tools. */
export function validateChatRequest(body: unknown): RequestCheck {
  if (!isObject(body)) return invalid("The request body must be a JSON object.");
  if (typeof body.model !== "string" || body.model === "") {
    return invalid("you must provide a model parameter", "model");
  }
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    return invalid("'messages' must be a non-empty array.", "messages");
  }
  const badMessage = body.messages.findIndex(
    (message) => !isObject(message) || typeof message.role !== "string",
  );
  if (badMessage >= 0) {
    return invalid(`messages[${badMessage}] must be an object with a 'role'.`, "messages");
  }
  if (body.stream === true) {
    return invalid("This fake server does not stream: send stream: false.", "stream");
  }
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) return invalid("'tools' must be an array.", "tools");
    const badTool = body.tools.findIndex(
      (tool) =>
        !isObject(tool) ||
        tool.type !== "function" ||
        !isObject(tool.function) ||
        typeof tool.function.name !== "string",
    );
    if (badTool >= 0) {
      return invalid(
        `tools[${badTool}] must be {"type":"function","function":{"name":…}}.`,
        `tools[${badTool}]`,
      );
    }
  }
  return { ok: true, request: body as ChatCompletionRequest };
}
