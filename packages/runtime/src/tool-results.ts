/**
 * Tool results shaped per docs/architecture/tool-results.md#the-result-vocabulary before they enter the log: a value over
 * the inline limit is stored as a blob and the event carries its
 * `ResourceRef`; text longer than the tool text limit is cut, marked
 * `truncated: true`, with the full value in a blob; a failure carries its
 * error, so an empty result is never confused with a failed one.
 *
 * What is cut is redacted first (core's `redactSecrets`): a preview or an
 * error message cut in the middle of `"apiKey":"…"` is text no reader could
 * redact any more, so the log never holds one with a secret in it. A result
 * kept whole is stored as the tool returned it (every view redacts it), and
 * so is the blob, which only the run's readers open.
 */
import { type CallOutcome, type EventDataOf, redactSecrets } from "@errand/core";
import {
  INLINE_VALUE_LIMIT_BYTES,
  TOOL_TEXT_LIMIT_CHARS,
  truncateText,
  utf8ByteLength,
} from "@errand/core/ops";
import type { BlobStore } from "./blobs.js";
import { errorMessage } from "./errors.js";

/** The `tool-result` fields that describe the result itself. */
export type ShapedToolResult = Omit<EventDataOf<"tool-result">, "step" | "callId">;

/** The content type of a text value kept as a blob. */
export const TEXT_CONTENT_TYPE = "text/plain; charset=utf-8";

/** The content type of a JSON value kept as a blob. */
export const JSON_CONTENT_TYPE = "application/json";

/** A failed call: its error message, redacted and cut to the tool text limit. */
export function failedToolResult(message: string): ShapedToolResult {
  const cut = truncateText(redactSecrets(message), TOOL_TEXT_LIMIT_CHARS);
  return { ok: false, error: cut.text, bytes: utf8ByteLength(message), truncated: cut.truncated };
}

function serialize(value: unknown): { text: string } | { problem: string } {
  try {
    const text = JSON.stringify(value ?? null);
    return text === undefined ? { problem: `a ${typeof value} is not JSON` } : { text };
  } catch (error) {
    return { problem: errorMessage(error) };
  }
}

/**
 * Shapes what a tool handler returned. A string is kept as text; any other
 * value as JSON (`undefined` as `null`); a value that cannot be JSON is a
 * failed call. When it is over {@link INLINE_VALUE_LIMIT_BYTES} or longer
 * than {@link TOOL_TEXT_LIMIT_CHARS}, the whole value is stored in `blobs` and
 * the event keeps a preview of the first characters with `truncated: true`.
 */
export async function shapeToolResult(
  value: unknown,
  runId: string,
  blobs: BlobStore,
): Promise<ShapedToolResult> {
  const isText = typeof value === "string";
  const serialized = isText ? { text: value } : serialize(value);
  if ("problem" in serialized) {
    return failedToolResult(`the tool returned a value that is not JSON: ${serialized.problem}`);
  }
  const { text } = serialized;
  const bytes = utf8ByteLength(text);
  if (bytes <= INLINE_VALUE_LIMIT_BYTES && text.length <= TOOL_TEXT_LIMIT_CHARS) {
    return { ok: true, result: isText ? text : JSON.parse(text), bytes, truncated: false };
  }
  const ref = await blobs.put(runId, text, isText ? TEXT_CONTENT_TYPE : JSON_CONTENT_TYPE);
  const preview = truncateText(
    redactedText(isText ? text : JSON.parse(text)),
    TOOL_TEXT_LIMIT_CHARS,
  );
  return { ok: true, result: preview.text, bytes, truncated: true, ref };
}

/** `value` as text with its secrets redacted: a string as itself, anything else as JSON. */
export function redactedText(value: unknown): string {
  const redacted = redactSecrets(value);
  return typeof redacted === "string" ? redacted : (JSON.stringify(redacted) ?? "null");
}

/**
 * What the model reads for a successful result: text as it is, anything else
 * as JSON; a truncated result ends with a note giving the full value's size
 * and reference.
 */
export function toolResultContent(outcome: Extract<CallOutcome, { kind: "result" }>): string {
  const body =
    typeof outcome.result === "string" ? outcome.result : JSON.stringify(outcome.result ?? null);
  if (!outcome.truncated) return body;
  const ref = outcome.ref;
  const note = ref
    ? `[truncated: the full value (${ref.sizeBytes} bytes, ${ref.contentType}) is stored as ${ref.ref}]`
    : "[truncated]";
  return `${body}\n${note}`;
}
