/**
 * Tools: a name, a description, zod parameters and a handler. The parameters
 * reach the model as JSON Schema (zod 4's own conversion), strict when the
 * schema fits the strict subset; the model's arguments are parsed with the zod
 * schema before the handler sees them.
 */
import { ErrandError, preflightSchema, type ResourceRef, type WaitpointState } from "@errand/core";
import { z } from "zod";
import type { Logger } from "./logger.js";
import { isStructuredOutputTool } from "./structured-output.js";
import type { ToolSpec } from "./tool-spec.js";

/** What a tool handler gets besides its arguments. */
export interface ToolContext {
  /** Fires when the run is cancelled or times out: stop and throw. */
  signal: AbortSignal;
  runId: string;
  /** The step whose model response made this call. */
  step: number;
  callId: string;
  /** A logger bound to the run and this call. */
  logger: Logger;
  /**
   * Stores a large value outside the log and returns its reference, to return
   * instead of the value (docs/architecture/tool-results.md#the-result-vocabulary). Results over the inline limit are stored
   * this way automatically.
   */
  putBlob(value: string, contentType: string): Promise<ResourceRef>;
  /**
   * What the host running the run lends its tools, by name (the engine lends
   * its client to the parent tools `spawn_agents` and `collect_agents`).
   * Empty unless `runSteps` was given `services`.
   */
  services: Readonly<Record<string, unknown>>;
  /**
   * The waitpoint of this call (see `waitForAnswer`): its token, the same
   * each time the call runs, to hand to whoever will answer; and its state
   * from the log once the call created it (`waiting`, `answered` with the
   * answer, or `timed-out`).
   */
  waitpoint: { token: string; state: WaitpointState | undefined };
}

/** What {@link defineTool} takes. */
export interface ToolOptions<P extends z.ZodType> {
  /** 1–64 letters, digits, `_` or `-`; unique within an agent. */
  name: string;
  /** What the tool does, for the model. */
  description: string;
  /** The arguments, as a zod object schema. */
  parameters: P;
  /**
   * Runs the tool with the parsed arguments; its return value (any JSON value)
   * is the result the model sees. A thrown error fails this call only (the
   * model sees its message); a thrown `FatalToolError` fails the run.
   */
  handler(args: z.output<P>, ctx: ToolContext): unknown;
}

/** A defined tool, with the spec the model is sent. */
export interface Tool<P extends z.ZodType = z.ZodType> extends ToolOptions<P> {
  readonly spec: ToolSpec;
}

/** The pattern a tool name must match (what OpenAI-compatible APIs accept). */
const TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

function invalidTool(name: string, why: string): ErrandError {
  return new ErrandError("invalid_spec", `tool ${JSON.stringify(name)}: ${why}`);
}

function looseParameters(name: string, parameters: z.ZodType): Record<string, unknown> {
  try {
    const { $schema: _dialect, ...schema } = z.toJSONSchema(parameters, { io: "input" });
    return schema;
  } catch (error) {
    throw invalidTool(name, `its parameters cannot be written as JSON Schema: ${String(error)}`);
  }
}

function toolSpec(name: string, description: string, parameters: z.ZodType): ToolSpec {
  const preflight = preflightSchema(parameters);
  const strict = preflight.ok;
  const schema = preflight.ok ? preflight.jsonSchema : looseParameters(name, parameters);
  if (schema.type !== "object") {
    throw invalidTool(name, "its parameters must be an object schema, such as z.object({ … })");
  }
  return { name, description, parameters: schema, strict };
}

/**
 * Defines a tool. Throws an `ErrandError` (`invalid_spec`) for a bad name, a
 * name reserved for the structured-output tool, an empty description, or
 * parameters that are not an object schema.
 *
 * ```ts
 * const add = defineTool({
 *   name: "add",
 *   description: "Adds two numbers.",
 *   parameters: z.object({ a: z.number(), b: z.number() }),
 *   handler: ({ a, b }) => ({ sum: a + b }),
 * });
 * ```
 */
export function defineTool<P extends z.ZodType>(options: ToolOptions<P>): Tool<P> {
  const { name, description, parameters } = options;
  if (!TOOL_NAME_PATTERN.test(name)) {
    throw invalidTool(name, "a tool name is 1 to 64 letters, digits, '_' or '-'");
  }
  if (isStructuredOutputTool(name)) {
    throw invalidTool(name, "the name is reserved for the structured-output tool");
  }
  if (description.trim() === "") throw invalidTool(name, "a tool needs a description");
  return { ...options, spec: toolSpec(name, description, parameters) };
}
