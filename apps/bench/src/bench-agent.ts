/**
 * The agent every errand phase runs: one step on the scripted model, which
 * records a structured output at once. A run is `run-queued`, `run-started`,
 * then one step (the model's response, the structured-output call and its
 * recording, `finished`) — the smallest complete run with a schema.
 */
import type { FireSpec } from "@errand/engine";
import { type Agent, defineAgent, scriptedModel } from "@errand/runtime";

/** The bench agent's name. */
export const BENCH_AGENT = "bench-echo";

/** The structured output each run records: `{ answer: string }`, a strict JSON Schema. */
export const BENCH_OUTPUT_SCHEMA = {
  type: "object",
  properties: { answer: { type: "string" } },
  required: ["answer"],
  additionalProperties: false,
} as const;

/** The output every bench run records. */
export const BENCH_ANSWER = { answer: "ok" } as const;

/** The bench agent: one scripted step that records {@link BENCH_ANSWER}. */
export function benchAgent(): Agent {
  return defineAgent({
    name: BENCH_AGENT,
    instructions: "Record the answer at once.",
    model: scriptedModel(),
    script: [{ call: [{ tool: "structured_output", args: { ...BENCH_ANSWER } }] }],
  });
}

/** The fire spec of the `index`-th bench run: a small input, the run's own schema. */
export function benchSpec(index: number): FireSpec {
  return { agent: BENCH_AGENT, input: { n: index }, outputSchema: { ...BENCH_OUTPUT_SCHEMA } };
}
