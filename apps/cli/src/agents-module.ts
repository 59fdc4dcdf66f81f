/**
 * Loading the agents a worker runs from a module the user names
 * (`--agents ./agents.js`): every export that is an agent made by
 * `defineAgent`, or an array of them, default export included.
 */
import { relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { type ErrandError, isErrandError } from "@errand/core";
import type { Agent } from "@errand/runtime";
import { usageError } from "./args.js";
import type { CliIO } from "./io.js";
import { describeError } from "./output.js";
import { syntaxErrorLocation } from "./syntax-error-location.js";

/** True for what `defineAgent` returns. */
function isAgent(value: unknown): value is Agent {
  if (typeof value !== "object" || value === null) return false;
  const agent = value as Partial<Record<keyof Agent, unknown>>;
  return (
    typeof agent.name === "string" &&
    typeof agent.instructions === "string" &&
    (typeof agent.model === "string" ||
      (typeof agent.model === "object" && agent.model !== null)) &&
    Array.isArray(agent.tools) &&
    typeof agent.maxSteps === "number" &&
    typeof agent.scriptFromInput === "boolean"
  );
}

/** The agents among a module's exports, each once, in export order. */
function agentsOfModule(exports: Record<string, unknown>): Agent[] {
  const found = new Set<Agent>();
  for (const value of Object.values(exports)) {
    for (const candidate of Array.isArray(value) ? value : [value]) {
      if (isAgent(candidate)) found.add(candidate);
    }
  }
  return [...found];
}

/**
 * The usage error of a module at `file` that cannot be loaded: for a syntax
 * error, `<file>:<line>: SyntaxError: <message>` (the file as seen from the
 * working directory) when its place can be found.
 */
async function cannotLoad(
  io: CliIO,
  path: string,
  file: string,
  error: unknown,
): Promise<ErrandError> {
  const location =
    error instanceof SyntaxError ? await syntaxErrorLocation(error, file) : undefined;
  if (location === undefined) {
    return usageError(`--agents: cannot load ${path}: ${describeError(error)}`, error);
  }
  const where = `${relative(io.cwd, location.file)}:${location.line}`;
  return usageError(`${where}: SyntaxError: ${describeError(error)}`, error);
}

/**
 * Imports the module at `path` (relative to the working directory) and
 * returns its agents. A module that cannot be loaded or exports no agent is a
 * usage error (a syntax error names its file and line); an `ErrandError` its
 * code throws (a `defineAgent` refusal) keeps its own code.
 */
export async function loadAgents(io: CliIO, path: string): Promise<Agent[]> {
  const file = resolve(io.cwd, path);
  let exports: Record<string, unknown>;
  try {
    exports = await import(pathToFileURL(file).href);
  } catch (error) {
    if (isErrandError(error)) throw error;
    throw await cannotLoad(io, path, file, error);
  }
  const agents = agentsOfModule(exports);
  if (agents.length === 0) {
    throw usageError(
      `--agents: ${path} exports no agent; export what defineAgent returns (or an array of them)`,
    );
  }
  return agents;
}
