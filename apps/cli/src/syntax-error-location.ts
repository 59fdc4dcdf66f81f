/**
 * Where a `SyntaxError` met while importing a module the user wrote is:
 * its file and line, which Node leaves out of the error of an ES module
 * (`Unexpected token '}'`, nothing more). Found without running the
 * module again: from the error's stack (a CommonJS module's starts with
 * `<file>:<line>`), else from `node --check <file>`, which parses the file
 * alone.
 */
import { execFile } from "node:child_process";
import { isAbsolute } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

/** How long `node --check` may take before the location is given up. */
const CHECK_TIMEOUT_MS = 10_000;

/** A place in a file. */
export interface SourceLocation {
  /** Absolute path of the file. */
  file: string;
  line: number;
}

/** `<file>:<line>` alone on a line, as Node heads a syntax error's report; a `file:` URL or an absolute path. */
const REPORT_HEAD = /^(file:\/\/.+|\/.+|[A-Za-z]:\\.+):(\d+)$/m;

/** `path` (a `file:` URL or a path) as an absolute path, or `undefined` for anything else. */
function absolutePath(path: string): string | undefined {
  if (path.startsWith("file://")) return fileURLToPath(path);
  return isAbsolute(path) ? path : undefined;
}

/** The location a report in `text` is headed with. */
function locationIn(text: string): SourceLocation | undefined {
  const match = REPORT_HEAD.exec(text);
  const file = match?.[1] === undefined ? undefined : absolutePath(match[1]);
  return file === undefined ? undefined : { file, line: Number(match?.[2]) };
}

/** What `node --check file` reports, or `undefined` when it finds nothing (or cannot run). */
async function checkedLocation(file: string): Promise<SourceLocation | undefined> {
  try {
    await promisify(execFile)(process.execPath, ["--check", file], {
      timeout: CHECK_TIMEOUT_MS,
      encoding: "utf8",
    });
    return undefined;
  } catch (error) {
    const stderr = (error as { stderr?: unknown }).stderr;
    return typeof stderr === "string" ? locationIn(stderr) : undefined;
  }
}

/**
 * Where `error`, thrown by importing the module at `file` (absolute), is:
 * from its stack when that says, else where `node --check` finds a syntax
 * error in `file`; `undefined` when neither does (the error is in a
 * module `file` imports, say).
 */
export async function syntaxErrorLocation(
  error: SyntaxError,
  file: string,
): Promise<SourceLocation | undefined> {
  return locationIn(error.stack ?? "") ?? (await checkedLocation(file));
}
