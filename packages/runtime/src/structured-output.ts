/**
 * The structured-output tool (docs/architecture/structured-output.md): advertised only to runs that carry
 * an output schema, called once by the model when its answer is complete,
 * validated against that run's own schema. The exact messages the model sees
 * live here.
 */
import { findLosslessJsonProblem, formatJsonPath } from "@errand/core/ops";
import { strictSchemaToZod } from "./strict-schema-zod.js";
import type { ToolSpec } from "./tool-spec.js";
import { fixAndRetryMessage, formatIssues } from "./validation-issues.js";

/** The name the structured-output tool is advertised under. */
export const STRUCTURED_OUTPUT_TOOL = "structured_output";

/** Every name a call to the structured-output tool may use: the default and the `set_output` alias. */
export const STRUCTURED_OUTPUT_TOOL_NAMES: readonly string[] = [
  STRUCTURED_OUTPUT_TOOL,
  "set_output",
];

/** The tool result of a valid structured-output call. */
export const OUTPUT_RECORDED_MESSAGE = "Structured output recorded.";

/** What the system prompt adds for a run that carries a schema. */
export const STRUCTURED_OUTPUT_INSTRUCTION = `When your answer is complete, call the \`${STRUCTURED_OUTPUT_TOOL}\` tool exactly once with the answer as its arguments. The run ends as soon as the answer is recorded, so do not call it before the answer is complete.`;

const TOOL_DESCRIPTION =
  "Records the final answer of this run. Call it exactly once, when the answer is complete: its arguments are the answer.";

/** True when a call named `name` is a call to the structured-output tool. */
export function isStructuredOutputTool(name: string): boolean {
  return STRUCTURED_OUTPUT_TOOL_NAMES.includes(name);
}

/** The refusal of a call made after the output was recorded (`tool` is the called name). */
export function outputAlreadyRecordedMessage(tool: string): string {
  return `Error: structured output already recorded: the run is complete, so ${tool} is not executed.`;
}

/** The refusal of a structured-output call whose arguments do not match the schema. */
export function invalidOutputMessage(tool: string, issues: readonly string[]): string {
  return fixAndRetryMessage(
    tool,
    `the arguments of ${tool} do not match the output schema`,
    issues,
  );
}

/** The structured-output tool as advertised to the model, for one run's schema. */
export function structuredOutputToolSpec(schema: Record<string, unknown>): ToolSpec {
  const { $schema: _dialect, ...parameters } = schema;
  return { name: STRUCTURED_OUTPUT_TOOL, description: TOOL_DESCRIPTION, parameters, strict: true };
}

/** The verdict on one structured-output call. */
type OutputCheck = { ok: true; output: unknown } | { ok: false; issues: string[] };

/** Checks structured-output arguments against one run's schema. */
export interface OutputValidator {
  check(args: unknown): OutputCheck;
}

function dataWrapped(args: unknown): { found: true; value: unknown } | { found: false } {
  if (typeof args !== "object" || args === null || Array.isArray(args)) return { found: false };
  const keys = Object.keys(args);
  return keys.length === 1 && keys[0] === "data"
    ? { found: true, value: (args as { data: unknown }).data }
    : { found: false };
}

/** How many compiled schemas {@link compileOutputSchema} keeps for runs with the same schema. */
const COMPILED_SCHEMAS_KEPT = 64;

/** Compiled validators by their schema's JSON text, least recently used first. */
const compiledSchemas = new Map<string, OutputValidator>();

/**
 * Compiles a run's JSON Schema (already accepted by `preflightSchema`) into a
 * validator (see `strictSchemaToZod`: every `pattern` and `format` is
 * matched in linear time). The output recorded is the value the model sent;
 * arguments wrapped as `{ data: … }` are unwrapped when the wrapped value
 * does not match but the unwrapped one does. Arguments nested more than
 * {@link OUTPUT_MAX_NESTING} deep are refused before they are validated, so
 * a recursive schema cannot be made to exhaust the worker's stack. Throws
 * when the schema cannot be compiled.
 *
 * Compiling costs far more than validating, and runs fired alike carry the
 * same schema, so the validators of the last {@link COMPILED_SCHEMAS_KEPT}
 * schemas (by JSON text) are kept: a validator holds no state, so runs with
 * the very same schema may share one.
 */
export function compileOutputSchema(schema: Record<string, unknown>): OutputValidator {
  const text = JSON.stringify(schema);
  const kept = compiledSchemas.get(text);
  if (kept !== undefined) {
    compiledSchemas.delete(text);
    compiledSchemas.set(text, kept);
    return kept;
  }
  const compiled = compileValidator(schema);
  compiledSchemas.set(text, compiled);
  if (compiledSchemas.size > COMPILED_SCHEMAS_KEPT) {
    compiledSchemas.delete(compiledSchemas.keys().next().value!);
  }
  return compiled;
}

/**
 * Structured-output arguments may nest objects and arrays at most this deep:
 * deeper than any answer a schema of the subset describes without recursion.
 */
export const OUTPUT_MAX_NESTING = 100;

function compileValidator(schema: Record<string, unknown>): OutputValidator {
  const validator = strictSchemaToZod(schema);
  return {
    check(args) {
      if (typeof args === "string") {
        return { ok: false, issues: ["$: the arguments are not valid JSON"] };
      }
      const problem = findLosslessJsonProblem(args, { maxDepth: OUTPUT_MAX_NESTING });
      if (problem !== undefined) {
        return { ok: false, issues: [`${formatJsonPath(problem.path, "$")}: ${problem.problem}`] };
      }
      const result = validator.safeParse(args);
      if (result.success) return { ok: true, output: args };
      const wrapped = dataWrapped(args);
      if (wrapped.found && validator.safeParse(wrapped.value).success) {
        return { ok: true, output: wrapped.value };
      }
      return { ok: false, issues: formatIssues(result.error.issues) };
    },
  };
}
