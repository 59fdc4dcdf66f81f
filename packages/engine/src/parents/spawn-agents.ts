/**
 * The `spawn_agents` tool (docs/architecture/tool-results.md#parents): a parent agent fires children, each
 * with its own agent, input and, optionally, output schema, and gets their
 * runIds at once — with a `nextAction` pointing to `collect_agents` — while
 * the children run in the background. One bad item fails alone. Its
 * description lists the agents it is given (`name — description`), so the
 * model knows what each is for. The tool reaches the engine through the
 * worker's `ctx.services`.
 */

import { MAX_RUN_PRIORITY, RunPriority } from "@errand/core";
import { type Agent, defineTool, type Tool } from "@errand/runtime";
import { z } from "zod";
import { FireBudget } from "../budgets/fire-budget.js";
import { MAX_FIRE_MANY } from "../client/fire-spec.js";
import { type ParentLimits, resolveParentLimits } from "./limits.js";
import { parentServicesOf } from "./parent-services.js";

/** The name of the tool that spawns children. */
const SPAWN_TOOL = "spawn_agents";

/** One child to spawn, as the model writes it. */
const SpawnAgentItem = z.object({
  agent: z.string().min(1).describe("The name of the agent to run."),
  input: z.unknown().describe("The child's input: any JSON value (null for none)."),
  outputSchema: z
    .record(z.string(), z.unknown())
    .optional()
    .describe(
      "The JSON Schema of the structured output the child must record (strict: every property required, additionalProperties false).",
    ),
  metadata: z
    .record(z.string(), z.string())
    .optional()
    .describe("Labels kept with the child run, as strings."),
  deadlineMs: z
    .number()
    .int()
    .positive()
    .optional()
    .describe("How long the child may take from now, in ms, before it fails deadline_exceeded."),
  priority: RunPriority.optional().describe(
    `The child's queue priority: 1 runs first, ${MAX_RUN_PRIORITY} last. Default: yours.`,
  ),
  budget: FireBudget.optional().describe(
    "A budget of the child's own (tokens, costUsd, steps, runs; onExceeded: finish-in-flight or cancel-tree), for it and its descendants, clamped to what your budget has left. Default: it spends from yours.",
  ),
});

/** The arguments of `spawn_agents`. */
const SpawnAgentsArgs = z.object({
  agents: z
    .array(SpawnAgentItem)
    .min(1)
    .max(MAX_FIRE_MANY)
    .describe("The children to spawn, one run per item."),
});

/** What the parent tools take: limits over the worker's, and the agents a parent spawns. */
export interface ParentToolsOptions extends Partial<ParentLimits> {
  /**
   * The agents the parent spawns: `spawn_agents`' description lists each as
   * `name — description`, so its model knows what each one is for.
   */
  agents?: readonly Pick<Agent, "name" | "description">[];
}

/** The lines that list `agents` for the model, one `- name — description` each; empty for none. */
function agentList(agents: readonly Pick<Agent, "name" | "description">[]): string {
  if (agents.length === 0) return "";
  const lines = agents.map(({ name, description }) =>
    description === undefined ? `- ${name}` : `- ${name} — ${description}`,
  );
  return `\nAgents you can spawn:\n${lines.join("\n")}`;
}

/**
 * A `spawn_agents` tool held to the limits of `options` over the worker's,
 * listing its `agents`. Throws `invalid_spec` for a limit that is not a whole number.
 */
export function createSpawnAgentsTool(options: ParentToolsOptions = {}): Tool {
  const { agents = [], ...limits } = options;
  resolveParentLimits(limits);
  return defineTool({
    name: SPAWN_TOOL,
    description:
      "Starts sub-agents in the background, one run per item of `agents`, each with its own input and, optionally, the JSON Schema of the structured output it must record. Answers at once with { total, succeeded, failed, results: [{ ok, runId, agent, error?, viewUrl? }] }: a bad item fails alone with its error, the others run. Continue your work, then collect their results with collect_agents (wait: true waits until every one has finished)." +
      agentList(agents),
    parameters: SpawnAgentsArgs,
    handler: (args, ctx) =>
      parentServicesOf(ctx, SPAWN_TOOL).spawn(
        { parentRunId: ctx.runId, step: ctx.step, callId: ctx.callId, args },
        args.agents,
        limits,
        ctx.signal,
      ),
  });
}

/** `spawn_agents` with the limits of the worker it runs on. */
export const spawnAgentsTool: Tool = createSpawnAgentsTool();
