/**
 * Minimal validation of Chat Completions and Responses requests: enough to
 * answer a malformed request with a 400 the way the real API does, not a
 * full schema.
 */
import type { ChatCompletionRequest, ResponsesRequest } from "./wire-types.js";

/** A valid request, or the reason it is not. */
export type RequestCheck<R = ChatCompletionRequest> =
  | { ok: true; request: R }
  | { ok: false; message: string; param: string | null };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function invalid(
  message: string,
  param: string | null = null,
): { ok: false; message: string; param: string | null } {
  return { ok: false, message, param };
}

/** The problem of a request without a model. */
function commonProblem(body: Record<string, unknown>) {
  if (typeof body.model !== "string" || body.model === "") {
    return invalid("you must provide a model parameter", "model");
  }
  return undefined;
}

/** The index of the first tool of `tools` that `isValid` refuses, or -1. */
function badToolIndex(tools: unknown[], isValid: (tool: Record<string, unknown>) => boolean) {
  return tools.findIndex((tool) => !isObject(tool) || tool.type !== "function" || !isValid(tool));
}

/**
 * Checks that `body` has a model, an input (text, or a list of objects), and
 * only function tools (`{ type: "function", name }`).
 */
export function validateResponsesRequest(body: unknown): RequestCheck<ResponsesRequest> {
  if (!isObject(body)) return invalid("The request body must be a JSON object.");
  const common = commonProblem(body);
  if (common) return common;
  const { input } = body;
  if (typeof input !== "string" && !(Array.isArray(input) && input.every(isObject))) {
    return invalid("'input' must be text or a list of input items.", "input");
  }
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) return invalid("'tools' must be an array.", "tools");
    const bad = badToolIndex(body.tools, (tool) => typeof tool.name === "string");
    if (bad >= 0) {
      return invalid(`tools[${bad}] must be {"type":"function","name":…}.`, `tools[${bad}]`);
    }
  }
  return { ok: true, request: body as ResponsesRequest };
}

/** Checks that `body` has a model, a messages array of role-bearing objects, and only function tools. */
export function validateChatRequest(body: unknown): RequestCheck {
  if (!isObject(body)) return invalid("The request body must be a JSON object.");
  const common = commonProblem(body);
  if (common) return common;
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    return invalid("'messages' must be a non-empty array.", "messages");
  }
  const badMessage = body.messages.findIndex(
    (message) => !isObject(message) || typeof message.role !== "string",
  );
  if (badMessage >= 0) {
    return invalid(`messages[${badMessage}] must be an object with a 'role'.`, "messages");
  }
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) return invalid("'tools' must be an array.", "tools");
    const badTool = badToolIndex(
      body.tools,
      (tool) => isObject(tool.function) && typeof tool.function.name === "string",
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
