/**
 * What the demo's parent is given: the children to spawn and, for the
 * scripted model, the script that spawns them, collects them and records
 * the summary the plan is designed to produce.
 *
 * The script relies on the parent tools as follows (a scripted parent cannot
 * know its children's runIds in advance):
 * - `spawn_agents({ agents: [{ agent, input, outputSchema? }, …] })` fires
 *   one child per item, each item a fire spec without `parentRunId`;
 * - `collect_agents({ wait: true })` without `runIds` collects every child
 *   of the calling run, parking the parent until they have settled.
 */
import { ErrandError, preflightSchema, type RunResult, type Script } from "@errand/core";
import { STRUCTURED_OUTPUT_TOOL } from "@errand/runtime/ops";
import { z } from "zod";
import { CityPopulation, DEMO_CHILD } from "./agents.js";
import { type ChildPlan, EXPECTED } from "./scenarios.js";

/**
 * The most children the demo fires. The parent's input carries every
 * child's spec twice (in `children` for a real model, in the script for the
 * scripted one), about 930 bytes a child: this many stay within the input
 * limit of the demo's client (the engine's default, 256 KiB), which about
 * 280 children would pass, the parent then refused `input_too_large`. A test
 * checks that the input of this many fits.
 */
export const MAX_DEMO_CHILDREN = 250;

/** The parent's structured answer: its children counted by status. */
export const DemoSummary = z.object({
  total: z.number().int(),
  succeeded: z.number().int(),
  failed: z.number().int(),
  cancelled: z.number().int(),
});
export type DemoSummary = z.infer<typeof DemoSummary>;

/** One child as the parent spawns it: a fire spec without its parent. */
interface ChildSpec {
  agent: string;
  input: ChildPlan["input"];
  outputSchema: Record<string, unknown>;
}

/** The parent's input. */
export interface ParentInput {
  children: ChildSpec[];
  /** Played by the scripted model; a real model follows the instructions instead. */
  script: Script;
}

/** The summary the children are designed to add up to. */
export function designedSummary(children: readonly ChildPlan[]): DemoSummary {
  const count = (status: RunResult["status"]) =>
    children.filter((child) => EXPECTED[child.scenario].status === status).length;
  return {
    total: children.length,
    succeeded: count("succeeded"),
    failed: count("failed"),
    cancelled: count("cancelled"),
  };
}

/** A zod schema as the JSON Schema a fire spec carries. */
export function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const checked = preflightSchema(schema);
  if (!checked.ok) throw new ErrandError("unsupported_schema", checked.reason);
  return checked.jsonSchema;
}

/** The input of the parent of `children`. */
export function parentInput(children: readonly ChildPlan[]): ParentInput {
  const outputSchema = jsonSchemaOf(CityPopulation);
  const specs = children.map((child) => ({ agent: DEMO_CHILD, input: child.input, outputSchema }));
  return {
    children: specs,
    script: [
      { call: [{ tool: "spawn_agents", args: { agents: specs } }] },
      { call: [{ tool: "collect_agents", args: { wait: true } }] },
      { call: [{ tool: STRUCTURED_OUTPUT_TOOL, args: designedSummary(children) }] },
    ],
  };
}
