/**
 * A tool call's arguments as the log keeps them
 * (docs/architecture/tool-results.md#call-arguments-kept-as-blobs): within
 * the inline limits, as the model gave them; over them — a `spawn_agents`
 * call of 1,000 children — whole in a blob of the run, and in the events a
 * preview of their redacted JSON with the blob's reference (`argsRef`). A
 * parent's log, and the folded state its worker holds, then grow by a
 * preview a step, not by every item it spawned. The tool always runs on the
 * whole arguments: a call resumed from the log has them read back from its
 * blob.
 */
import { ErrandError, type ToolCall } from "@errand/core";
import {
  CALL_ARGS_PREVIEW_CHARS,
  INLINE_VALUE_LIMIT_BYTES,
  TOOL_TEXT_LIMIT_CHARS,
  truncateText,
  utf8ByteLength,
} from "@errand/core/ops";
import type { BlobStore } from "./blobs.js";
import { JSON_CONTENT_TYPE, redactedText, TEXT_CONTENT_TYPE } from "./tool-results.js";

/** What a model reads of arguments logged cut: their first characters, redacted. */
interface CutCallArgs {
  truncated: true;
  preview: string;
}

/**
 * `call` as its events log it: itself when its arguments are within the
 * inline limits (or cannot be JSON: the tool refuses them as they are), else
 * with its arguments stored in `blobs` and `args` a {@link CutCallArgs}.
 */
export async function loggedCall(
  call: ToolCall,
  runId: string,
  blobs: BlobStore,
): Promise<ToolCall> {
  const isText = typeof call.args === "string";
  let text: string | undefined;
  try {
    text = isText ? (call.args as string) : JSON.stringify(call.args ?? null);
  } catch {
    return call;
  }
  if (
    text === undefined ||
    (text.length <= TOOL_TEXT_LIMIT_CHARS && utf8ByteLength(text) <= INLINE_VALUE_LIMIT_BYTES)
  ) {
    return call;
  }
  const argsRef = await blobs.put(runId, text, isText ? TEXT_CONTENT_TYPE : JSON_CONTENT_TYPE);
  const preview = truncateText(
    redactedText(leadingPart(call.args, 2 * CALL_ARGS_PREVIEW_CHARS)),
    CALL_ARGS_PREVIEW_CHARS,
  ).text;
  const args: CutCallArgs = { truncated: true, preview };
  return { callId: call.callId, name: call.name, args, argsRef };
}

/**
 * The leading part of `value` whose JSON holds at least its first `chars`
 * characters: the elements of an array, and the entries of an object, up to
 * the first that ends past them, each cut the same way. Redacting it and
 * cutting its JSON gives the preview redacting the whole would, without
 * walking 1,000 spawn items to keep the first few.
 */
function leadingPart(value: unknown, chars: number): unknown {
  if (typeof value !== "object" || value === null) return value;
  const record = value as Record<string, unknown>;
  const isArray = Array.isArray(value);
  const keys: Iterable<string | number> = isArray ? value.keys() : Object.keys(value);
  const kept: [string | number, unknown][] = [];
  // An underestimate of the JSON's length (a redacted value may be shorter): more is kept, never less.
  let length = 1;
  for (const key of keys) {
    if (length > chars) break;
    const part = leadingPart(record[key], chars - length);
    kept.push([key, part]);
    length += (JSON.stringify(part)?.length ?? 0) + (isArray ? 0 : String(key).length + 3);
  }
  return isArray ? kept.map(([, part]) => part) : Object.fromEntries(kept);
}

/**
 * `call` with its whole arguments: read back from its blob when the log cut
 * them. Throws `internal` when the blob is gone (blobs live as long as their
 * run, so only a store that lost data answers so).
 */
export async function wholeCall(call: ToolCall, blobs: BlobStore): Promise<ToolCall> {
  const { argsRef } = call;
  if (argsRef === undefined) return call;
  const blob = await blobs.get(argsRef);
  if (blob === undefined) {
    throw new ErrandError(
      "internal",
      `the arguments of call ${call.callId} (${argsRef.ref}) are missing from the run's blobs`,
    );
  }
  const args = blob.contentType.startsWith(JSON_CONTENT_TYPE) ? JSON.parse(blob.value) : blob.value;
  return { callId: call.callId, name: call.name, args };
}
