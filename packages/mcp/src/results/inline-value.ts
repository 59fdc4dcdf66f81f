/**
 * How a run's output and text travel in a tool answer
 * (docs/architecture/mcp.md#sizes): whole while short, else cut at a
 * documented number of characters, flagged, and referenced by the resource
 * that returns the whole.
 */
import { type ResultRef, resultRef } from "./result-resource.js";

/** An output as an answer carries it: whole, or a preview of its JSON with the reference. */
export type InlineOutput =
  | { output: unknown }
  | { outputPreview: string; outputTruncated: true; resultRef: ResultRef };

/** A text as an answer carries it: whole, or its start with the reference. */
export type InlineText =
  | { text: string }
  | { text: string; textTruncated: true; resultRef: ResultRef };

/** `output` of run `runId`, whole when its JSON has at most `maxChars` characters. */
export function inlineOutput(runId: string, output: unknown, maxChars: number): InlineOutput {
  const json = JSON.stringify(output) ?? "null";
  if (json.length <= maxChars) return { output };
  return {
    outputPreview: json.slice(0, maxChars),
    outputTruncated: true,
    resultRef: resultRef(runId, Buffer.byteLength(json)),
  };
}

/** `text` of run `runId`, whole when it has at most `maxChars` characters. */
export function inlineText(runId: string, text: string, maxChars: number): InlineText {
  if (text.length <= maxChars) return { text };
  return {
    text: text.slice(0, maxChars),
    textTruncated: true,
    resultRef: resultRef(runId, Buffer.byteLength(text)),
  };
}
