/**
 * Writing results: JSON for machines (`--json`, one document per line) and
 * lines for people, plus the one-line error a failed command prints. Every
 * value printed as JSON, for machines or in a line for people, has its
 * secrets redacted (`@errand/core`'s `redactSecrets`: the list the logs and
 * the dashboard use).
 */
import { isErrandError, redactSecrets } from "@errand/core";
import type { CliIO } from "./io.js";

/** `value` as JSON, its secrets redacted: how the CLI prints any value. */
export function jsonText(value: unknown): string {
  return JSON.stringify(redactSecrets(value)) ?? "undefined";
}

/** Writes `value` as one line of JSON on stdout, its secrets redacted. */
export function writeJson(io: CliIO, value: unknown): void {
  io.stdout.write(`${jsonText(value)}\n`);
}

/** Writes lines of text on stdout. */
export function writeLines(io: CliIO, lines: readonly string[]): void {
  if (lines.length > 0) io.stdout.write(`${lines.join("\n")}\n`);
}

/** `text` on one line: runs of whitespace, newlines included, become one space. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** What went wrong, in one line a person can act on, its secrets redacted. */
export function describeError(error: unknown): string {
  if (isErrandError(error)) return oneLine(redactSecrets(error.message));
  if (error instanceof Error) return oneLine(redactSecrets(error.message || error.name));
  return oneLine(redactSecrets(String(error)));
}

/** Prints `errand: <what went wrong>` on stderr, on one line. */
export function writeError(io: CliIO, error: unknown): void {
  io.stderr.write(`errand: ${describeError(error)}\n`);
}
