/**
 * Reading what the user points at: files named on the command line and JSON
 * arguments given inline or as `@file`. Every failure is a one-line usage error.
 */
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { usageError } from "./args.js";
import type { CliIO } from "./io.js";
import { oneLine } from "./output.js";
import { shellCommand } from "./shell-quote.js";

/** The text of `path` (relative to the working directory); `what` names it in errors. */
export async function readUserFile(io: CliIO, path: string, what: string): Promise<string> {
  try {
    return await readFile(resolve(io.cwd, path), "utf8");
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw usageError(`${what}: cannot read ${path}: ${oneLine(reason)}`, error);
  }
}

/** `text` parsed as JSON; `what` names it in errors. */
export function parseJsonText(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw usageError(`${what} is not valid JSON: ${oneLine(reason)}`, error);
  }
}

/**
 * A JSON argument: `@path` reads the file, anything else is JSON text
 * (`--input '{"city":"Oslo"}'`). `what` names the option in errors.
 */
export async function readJsonArgument(io: CliIO, value: string, what: string): Promise<unknown> {
  if (value.startsWith("@")) {
    const path = value.slice(1);
    return parseJsonText(await readUserFile(io, path, what), `${what} (${path})`);
  }
  return parseJsonText(value, what);
}

/** The first character of JSON text that is an object, an array or a string. */
const JSON_OPENING = /^\s*[[{"]/;

/**
 * A run's input, which may be any JSON value, as {@link readJsonArgument}
 * reads it; bare text that is not JSON (`--input Ada`) is refused with the
 * quoted form that gives it as a JSON string.
 */
export async function readInputArgument(io: CliIO, value: string, what: string): Promise<unknown> {
  try {
    return await readJsonArgument(io, value, what);
  } catch (error) {
    if (value.startsWith("@") || JSON_OPENING.test(value) || !(error instanceof Error)) throw error;
    const quoted = shellCommand([what, JSON.stringify(value)]);
    throw usageError(`${error.message} (a text is a JSON string, in quotes: ${quoted})`, error);
  }
}
