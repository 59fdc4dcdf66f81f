/**
 * How much text and data travel inline (docs/architecture/tool-results.md#the-result-vocabulary). Tool text handed to a
 * model is cut at {@link TOOL_TEXT_LIMIT_CHARS} with `truncated: true`; a value
 * larger than {@link INLINE_VALUE_LIMIT_BYTES} of UTF-8 JSON travels as a
 * `ResourceRef` instead of inline.
 */
import { ErrandError } from "./errors.js";

/**
 * The default length at which tool text given to a model is truncated, in
 * UTF-16 code units (JavaScript string length): 16,000, a few thousand
 * tokens, enough for a page of output without flooding the context.
 */
export const TOOL_TEXT_LIMIT_CHARS = 16_000;

/** Above this many bytes (32 KiB) of UTF-8, a value is stored as a blob and travels as a `ResourceRef`. */
export const INLINE_VALUE_LIMIT_BYTES = 32 * 1024;

/**
 * The length of the preview a tool call's arguments are logged as when they
 * are over the inline limits (the whole arguments go to a blob): 2,000 UTF-16
 * code units. A model reads its own earlier arguments back only to know what
 * it asked for; the tool runs on the whole of them.
 */
export const CALL_ARGS_PREVIEW_CHARS = 2_000;

/**
 * How much of a run's history its transcript carries, in characters of
 * message content (text, call arguments as JSON, tool results): 400,000,
 * about 100,000 tokens. Older steps are left out whole, newest kept first
 * (docs/architecture/tool-results.md#a-transcript-within-a-budget).
 */
export const TRANSCRIPT_BUDGET_CHARS = 400_000;

/** Text after {@link truncateText}. */
export interface TruncatedText {
  /** The text, cut if it was too long. */
  text: string;
  /** Whether anything was cut off. */
  truncated: boolean;
  /** The length of the whole text before cutting, in UTF-16 code units. */
  totalChars: number;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * `text` cut to at most `maxChars` UTF-16 code units. The cut falls on a code
 * point boundary: a surrogate pair is never split (the result may then be one
 * unit shorter than `maxChars`).
 */
export function truncateText(
  text: string,
  maxChars: number = TOOL_TEXT_LIMIT_CHARS,
): TruncatedText {
  if (!Number.isSafeInteger(maxChars) || maxChars < 0) {
    throw new ErrandError(
      "internal",
      `maxChars must be a whole number, 0 or more; got ${maxChars}`,
    );
  }
  if (text.length <= maxChars) return { text, truncated: false, totalChars: text.length };
  const splitsPair =
    isHighSurrogate(text.charCodeAt(maxChars - 1)) && isLowSurrogate(text.charCodeAt(maxChars));
  const end = splitsPair ? maxChars - 1 : maxChars;
  return { text: text.slice(0, end), truncated: true, totalChars: text.length };
}

/**
 * The number of bytes `text` takes as UTF-8, without encoding it. A lone
 * surrogate counts 3 bytes, as `TextEncoder` writes it (U+FFFD).
 */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (isHighSurrogate(code) && isLowSurrogate(text.charCodeAt(i + 1))) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}
