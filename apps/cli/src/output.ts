/**
 * Writing results: JSON for machines (`--json`, one document per line) and
 * lines for people, plus the one-line error a failed command prints.
 */
import { isErrandError } from "@errand/core";
import type { CliIO } from "./io.js";

/** Writes `value` as one line of JSON on stdout. */
export function writeJson(io: CliIO, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value)}\n`);
}

/** Writes lines of text on stdout. */
export function writeLines(io: CliIO, lines: readonly string[]): void {
  if (lines.length > 0) io.stdout.write(`${lines.join("\n")}\n`);
}

/** `text` on one line: runs of whitespace, newlines included, become one space. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** What went wrong, in one line a person can act on. */
export function describeError(error: unknown): string {
  if (isErrandError(error)) return oneLine(error.message);
  if (error instanceof Error) return oneLine(error.message || error.name);
  return oneLine(String(error));
}

/** Prints `errand: <what went wrong>` on stderr, on one line. */
export function writeError(io: CliIO, error: unknown): void {
  io.stderr.write(`errand: ${describeError(error)}\n`);
}
