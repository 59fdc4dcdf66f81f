/**
 * Model settings, per agent: how its model is asked to answer (reasoning
 * effort, temperature, …). They are checked twice, never dropped: their
 * values and the tools a `toolChoice` names when the agent is defined, and
 * whether its model honours each of them once the model is known (when the
 * agent is defined with a {@link Model}, or when a host resolves the model an
 * agent names). A setting a model cannot honour is refused, with its name.
 */
import { ErrandError } from "@errand/core";
import { z } from "zod";
import { STRUCTURED_OUTPUT_TOOL_NAMES } from "./structured-output.js";

/** The reasoning efforts the `openai` client knows; not every model takes every one. */
const REASONING_EFFORTS = ["none", "minimal", "low", "medium", "high", "xhigh", "max"] as const;

/**
 * The settings an agent may give its model. Every field is optional; a
 * model is asked to honour those given, and refuses what it cannot.
 */
export const ModelSettings = z.strictObject({
  /** For reasoning models: how hard to think, and whether to report a summary of it (Responses API only). */
  reasoning: z
    .strictObject({
      effort: z.enum(REASONING_EFFORTS).optional(),
      summary: z.enum(["auto", "concise", "detailed"]).optional(),
    })
    .optional(),
  /** Sampling temperature, 0 to 2. */
  temperature: z.number().min(0).max(2).optional(),
  /** Nucleus sampling: only the tokens of the top `topP` probability mass, 0 to 1. */
  topP: z.number().min(0).max(1).optional(),
  /** The most tokens one response may produce, reasoning included. */
  maxOutputTokens: z.number().int().positive().optional(),
  /** Whether the model may make several tool calls in one response. */
  parallelToolCalls: z.boolean().optional(),
  /**
   * Which tool the model must call on every request: `auto` (its choice),
   * `required` (some tool), `none`, or `{ name }` (that one).
   */
  toolChoice: z
    .union([z.enum(["auto", "required", "none"]), z.strictObject({ name: z.string().min(1) })])
    .optional(),
});
export type ModelSettings = z.infer<typeof ModelSettings>;

/**
 * The settings one run may give on top of its agent's (`fire({ modelSettings })`):
 * all but the tool settings, which name the agent's tools.
 */
export const RunModelSettings = ModelSettings.omit({ toolChoice: true, parallelToolCalls: true });
export type RunModelSettings = z.infer<typeof RunModelSettings>;

/**
 * The settings a run asks its model for: its agent's, with those the run was
 * fired with (its `run-queued.modelSettings`) over them, `reasoning` merged
 * field by field. Throws `invalid_spec` for run settings that are not
 * {@link RunModelSettings}.
 */
export function runModelSettings(agent: ModelSettings, run: unknown): ModelSettings {
  if (run === undefined) return agent;
  const parsed = RunModelSettings.safeParse(run);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ErrandError(
      "invalid_spec",
      `modelSettings: ${issue?.path.join(".") || "modelSettings"}: ${issue?.message ?? "invalid"}`,
    );
  }
  const { reasoning, ...rest } = parsed.data;
  const merged = { ...agent.reasoning, ...reasoning };
  return {
    ...agent,
    ...rest,
    ...(Object.keys(merged).length === 0 ? {} : { reasoning: merged }),
  };
}

/** The names of the settings `settings` gives, as written (`reasoning.effort`, `temperature`, …). */
export function settingNames(settings: ModelSettings): string[] {
  // Plain loops: asked before every run's first request, most often of settings that give none.
  const names: string[] = [];
  const { reasoning } = settings;
  if (reasoning !== undefined) {
    for (const name of Object.keys(reasoning) as (keyof typeof reasoning)[]) {
      if (reasoning[name] !== undefined) names.push(`reasoning.${name}`);
    }
  }
  for (const name of Object.keys(settings) as (keyof ModelSettings)[]) {
    if (name !== "reasoning" && settings[name] !== undefined) names.push(name);
  }
  return names;
}

/** What an agent offers the model to call, for checking a `toolChoice`. */
interface AgentTools {
  /** The names of the agent's own tools. */
  tools: readonly string[];
  /** Whether the agent's runs carry an output schema (and so get the structured-output tool). */
  hasSchema: boolean;
}

function toolChoiceProblem(settings: ModelSettings, offered: AgentTools): string | undefined {
  const { toolChoice, parallelToolCalls } = settings;
  if (toolChoice === undefined && parallelToolCalls === undefined) return undefined;
  const names = [...offered.tools, ...(offered.hasSchema ? STRUCTURED_OUTPUT_TOOL_NAMES : [])];
  if (names.length === 0) {
    return "toolChoice and parallelToolCalls need tools, and the agent has none (nor an output schema)";
  }
  if (toolChoice === "none" && offered.hasSchema) {
    return 'toolChoice "none" would keep every run from recording its structured output';
  }
  if (typeof toolChoice === "object" && !names.includes(toolChoice.name)) {
    return `toolChoice names ${toolChoice.name}, which is not a tool of the agent (its tools: ${names.join(", ")})`;
  }
  return undefined;
}

/**
 * `settings` checked for an agent named `agent` offering `offered`: the
 * settings as parsed, or an `ErrandError` (`invalid_spec`) naming the first
 * problem — an unknown setting, a value out of range, a `toolChoice` naming a
 * tool the agent lacks.
 */
export function checkModelSettings(
  agent: string,
  settings: unknown,
  offered: AgentTools,
): ModelSettings {
  const parsed = ModelSettings.safeParse(settings ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join(".") || "modelSettings";
    throw new ErrandError(
      "invalid_spec",
      `agent ${JSON.stringify(agent)}: modelSettings: ${where}: ${issue?.message ?? "invalid"}`,
    );
  }
  const problem = toolChoiceProblem(parsed.data, offered);
  if (problem !== undefined) {
    throw new ErrandError("invalid_spec", `agent ${JSON.stringify(agent)}: ${problem}`);
  }
  return parsed.data;
}
