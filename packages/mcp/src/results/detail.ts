/**
 * `detail`, the one switch between the short and the long form of a run in
 * an answer (docs/architecture/mcp.md#sizes): `summary` (the default) carries
 * outputs and texts up to `INLINE_CHARS.summary`, `full` up to
 * `INLINE_CHARS.full` (and `get_run` adds the run's attempts, steps, usage
 * and times).
 */
import { z } from "zod";
import { INLINE_CHARS } from "../limits.js";

/** The argument every tool that returns runs takes. */
export const Detail = z
  .enum(["summary", "full"])
  .optional()
  .describe(
    `summary (default): status, error, and output or text up to ${INLINE_CHARS.summary} characters; full: up to ${INLINE_CHARS.full} characters. Longer values are cut, flagged outputTruncated/textTruncated, and referenced by resultRef.uri, a resource that returns the whole.`,
  );
export type Detail = z.infer<typeof Detail>;

/** How many characters of a value travel inline at `detail`. */
export function inlineChars(detail: Detail): number {
  return INLINE_CHARS[detail ?? "summary"];
}
