/**
 * Agents: what a run executes. A definition names the agent, says in a line
 * what it is for, gives the model its instructions, a model (or a model name
 * the host resolves), tools, optional input and structured-output schemas and
 * the limits every run of it obeys.
 */
import { ErrandError, preflightSchema, Script } from "@errand/core";
import type { z } from "zod";
import { type Agent, type Model, schemaRefusal, settingsRefusal } from "./model.js";
import { checkModelSettings, type ModelSettings } from "./model-settings.js";
import type { Tool } from "./tool.js";

/** The `maxSteps` of an agent that does not set one. */
export const DEFAULT_MAX_STEPS = 20;

/** The pattern an agent name must match. */
const AGENT_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

/** The pattern an agent's given version must match. */
const AGENT_VERSION_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;

/** The longest {@link AgentOptions.description}, in characters. */
const MAX_AGENT_DESCRIPTION = 200;

/** What {@link defineAgent} takes. */
export interface AgentOptions {
  /** Unique within a deployment: letters, digits, `_`, `.`, `-` (up to 128). */
  name: string;
  /**
   * What the agent is for, in one line of at most {@link MAX_AGENT_DESCRIPTION}
   * characters, for whoever picks an agent: a parent's model (`spawn_agents`
   * lists it), a person (`errand doctor`), a client.
   */
  description?: string;
  /** The system prompt. */
  instructions: string;
  /**
   * The model: a {@link Model}, or a model name (like `gpt-4o-mini`) for the
   * host to resolve and pass to the provider it configured.
   */
  model: Model | string;
  /**
   * How the model is asked to answer: `reasoning` (`effort`, `summary`),
   * `temperature`, `maxOutputTokens`, `parallelToolCalls`, `toolChoice`. Each
   * one given must be honoured by the model, or the agent is refused
   * (`settings_not_supported`): see the runtime README's model settings.
   */
  modelSettings?: ModelSettings;
  tools?: readonly Tool[];
  /**
   * The input every run must be fired with, in the same subset as
   * {@link AgentOptions.outputSchema}: `fire` refuses any other with
   * `invalid_input` and its issues, before anything is written.
   */
  inputSchema?: z.ZodType | Record<string, unknown>;
  /**
   * The structured answer every run must record: a zod schema (converted with
   * `z.toJSONSchema`) or a JSON Schema object, within the strict subset of docs/architecture/structured-output.md.
   */
  outputSchema?: z.ZodType | Record<string, unknown>;
  /** The most model requests a run may make. Default {@link DEFAULT_MAX_STEPS}. */
  maxSteps?: number;
  /**
   * How long a run may work, in milliseconds: counted from its first start,
   * less the time it spent parked (waiting for its children or on a
   * waitpoint). A fire's `deadlineMs` bounds the wall-clock time.
   */
  timeoutMs?: number;
  /** The script the scripted model plays for this agent (docs/architecture/defaults.md#the-scripted-model). */
  script?: Script;
  /** Let a run's `input.script` replace {@link AgentOptions.script} (demos and tests). */
  scriptFromInput?: boolean;
  /**
   * The agent's version (1–128 characters: letters, digits, `_`, `.`, `-`),
   * e.g. a release or commit. Runs are pinned to the version they were fired
   * for. Default: a digest of the definition (see `agentVersion`).
   */
  version?: string;
}

function invalidAgent(name: string, why: string): ErrandError {
  return new ErrandError("invalid_spec", `agent ${JSON.stringify(name)}: ${why}`);
}

function positiveInteger(value: number | undefined): boolean {
  return value === undefined || (Number.isInteger(value) && value > 0);
}

function checkTools(name: string, tools: readonly Tool[]): void {
  const seen = new Set<string>();
  for (const tool of tools) {
    if (seen.has(tool.name)) throw invalidAgent(name, `two tools are named ${tool.name}`);
    seen.add(tool.name);
  }
}

function checkScript(name: string, script: Script | undefined): Script | undefined {
  if (script === undefined) return undefined;
  const parsed = Script.safeParse(script);
  if (parsed.success) return parsed.data;
  throw invalidAgent(name, `invalid script: ${parsed.error.issues[0]?.message ?? "unknown"}`);
}

function checkDescription(name: string, description: string | undefined): void {
  if (description === undefined) return;
  if (description.trim() === "" || /[\r\n]/.test(description)) {
    throw invalidAgent(name, "a description is one line of text, not empty");
  }
  if (description.length > MAX_AGENT_DESCRIPTION) {
    throw invalidAgent(
      name,
      `a description is at most ${MAX_AGENT_DESCRIPTION} characters (this one has ${description.length}); say what the agent is for in one short line`,
    );
  }
}

function jsonSchemaOf(
  schema: AgentOptions["outputSchema"] | AgentOptions["inputSchema"],
): Record<string, unknown> | undefined {
  if (schema === undefined) return undefined;
  const preflight = preflightSchema(schema);
  if (preflight.ok) return preflight.jsonSchema;
  throw new ErrandError("unsupported_schema", preflight.reason);
}

/**
 * Refuses (with an `ErrandError`, code `schema_not_supported`) a schema'd
 * agent whose model cannot call tools, or whose model's capabilities refuse
 * a keyword of its schema (`details.keyword`, `details.provider`), so such a run is refused before it
 * starts (docs/architecture/structured-output.md#rule-7). `model` is the model the host resolved for an agent
 * that names its model; without it the agent's own {@link Model} is checked.
 */
export function assertAgentCanCarrySchema(agent: Agent, model?: Model): void {
  const resolved = model ?? (typeof agent.model === "string" ? undefined : agent.model);
  if (agent.outputSchema === undefined || resolved === undefined) return;
  const refusal = schemaRefusal(resolved, agent.outputSchema);
  if (refusal !== undefined) {
    throw new ErrandError("schema_not_supported", `agent ${agent.name}: ${refusal.message}`, {
      details: { agent: agent.name, ...refusal.details },
    });
  }
}

/**
 * Throws an `ErrandError` (`invalid_spec`) when `model` says it cannot send
 * requests (`Model.missingCredentials`: an API key not set), naming the agent.
 */
export function assertModelIsReady(agent: Agent, model: Model): void {
  const missing = model.missingCredentials?.();
  if (missing) {
    throw new ErrandError(
      "invalid_spec",
      `agent ${agent.name}: model ${model.name} cannot send requests: ${missing}`,
    );
  }
}

/**
 * Refuses (with an `ErrandError`, code `settings_not_supported`) an agent
 * whose model cannot honour one of its model settings, so that no setting is
 * ever dropped silently. `model` is the model the host resolved for an agent
 * that names its model; without it the agent's own {@link Model} is checked.
 */
export function assertModelTakesSettings(agent: Agent, model?: Model): void {
  const resolved = model ?? (typeof agent.model === "string" ? undefined : agent.model);
  const refusal = resolved && settingsRefusal(resolved, agent.modelSettings);
  if (refusal) {
    throw new ErrandError("settings_not_supported", `agent ${agent.name}: ${refusal}`);
  }
}

/**
 * Defines an agent. Throws an `ErrandError`: `invalid_spec` for a bad name,
 * a description that is empty, longer than one line or than
 * {@link MAX_AGENT_DESCRIPTION} characters, duplicate tool names, non-positive limits, an invalid script or invalid
 * model settings; `unsupported_schema` for an input or output schema
 * outside the supported subset; `schema_not_supported` for a schema on a model without
 * tool calling; `settings_not_supported` for a setting its model cannot honour.
 *
 * ```ts
 * const researcher = defineAgent({
 *   name: "researcher",
 *   description: "Answers one factual question from web sources.",
 *   instructions: "Find the answer and record it.",
 *   model: openaiModel({ model: "gpt-4o-mini" }),
 *   tools: [search],
 *   inputSchema: z.object({ question: z.string() }),
 *   outputSchema: z.object({ answer: z.string() }),
 *   maxSteps: 8,
 * });
 * ```
 */
export function defineAgent(options: AgentOptions): Agent {
  const { name } = options;
  if (!AGENT_NAME_PATTERN.test(name)) {
    throw invalidAgent(name, "an agent name is letters, digits, '_', '.' or '-' (up to 128)");
  }
  checkDescription(name, options.description);
  const tools = options.tools ?? [];
  checkTools(name, tools);
  if (!positiveInteger(options.maxSteps) || !positiveInteger(options.timeoutMs)) {
    throw invalidAgent(name, "maxSteps and timeoutMs must be positive integers");
  }
  if (options.version !== undefined && !AGENT_VERSION_PATTERN.test(options.version)) {
    throw invalidAgent(name, "a version is letters, digits, '_', '.' or '-' (up to 128)");
  }
  const script = checkScript(name, options.script);
  const inputSchema = jsonSchemaOf(options.inputSchema);
  const outputSchema = jsonSchemaOf(options.outputSchema);
  const modelSettings = checkModelSettings(name, options.modelSettings, {
    tools: tools.map((tool) => tool.name),
    hasSchema: outputSchema !== undefined,
  });
  const agent: Agent = {
    name,
    ...(options.description === undefined ? {} : { description: options.description }),
    instructions: options.instructions,
    model: options.model,
    modelSettings,
    tools,
    ...(inputSchema === undefined ? {} : { inputSchema }),
    ...(outputSchema === undefined ? {} : { outputSchema }),
    maxSteps: options.maxSteps ?? DEFAULT_MAX_STEPS,
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(script === undefined ? {} : { script }),
    scriptFromInput: options.scriptFromInput ?? false,
    ...(options.version === undefined ? {} : { version: options.version }),
  };
  assertAgentCanCarrySchema(agent);
  assertModelTakesSettings(agent);
  return agent;
}
