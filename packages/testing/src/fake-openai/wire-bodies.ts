/**
 * What the fake server's answers in both API shapes share: token estimates,
 * random ids, tool arguments as text, and the OpenAI error body.
 */
import { randomBytes } from "node:crypto";
import type { ScriptTurn } from "@errand/core";
import type { WireErrorBody } from "./wire-types.js";

/** A turn that answers (as opposed to one that fails). */
export type AnswerTurn = Exclude<ScriptTurn, { fail: string }>;

/** A deterministic token estimate: one token per four characters, rounded up. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** A random id with the prefix the real API uses for its kind (`call_`, `resp_`, …). */
export function randomId(prefix: string): string {
  return `${prefix}${randomBytes(12).toString("base64url")}`;
}

/** Tool arguments as the API sends them: a JSON string. A string in the script is sent verbatim (to test malformed arguments). */
export function encodeArguments(args: unknown): string {
  return typeof args === "string" ? args : JSON.stringify(args ?? {});
}

/**
 * The input tokens the server pretends it read from its prompt cache: the
 * conversation up to its last answer, which an earlier request already sent.
 */
export function cachedTokens(messages: readonly { role: string }[]): number {
  const lastAnswer = messages.map((message) => message.role).lastIndexOf("assistant");
  return lastAnswer < 0 ? 0 : estimateTokens(JSON.stringify(messages.slice(0, lastAnswer + 1)));
}

/** The reasoning tokens the server pretends a turn took, when the request asked for reasoning. */
export function reasoningTokens(turn: AnswerTurn | undefined): number {
  return estimateTokens(`reasoning about ${JSON.stringify(turn ?? {})}`);
}

/** The `type` and `code` the real API puts in an error of this status. */
function errorKind(status: number): { type: string; code: string } {
  if (status === 429) return { type: "requests", code: "rate_limit_exceeded" };
  if (status === 401) return { type: "invalid_request_error", code: "invalid_api_key" };
  if (status === 404) return { type: "invalid_request_error", code: "model_not_found" };
  if (status >= 500) return { type: "server_error", code: "server_error" };
  return { type: "invalid_request_error", code: "invalid_request" };
}

/** An OpenAI-style error body for `status`; `code` overrides the usual one for that status. */
export function buildError(
  status: number,
  message: string,
  options: { param?: string | null; code?: string } = {},
): WireErrorBody {
  const kind = errorKind(status);
  return {
    error: {
      message,
      type: kind.type,
      param: options.param ?? null,
      code: options.code ?? kind.code,
    },
  };
}
