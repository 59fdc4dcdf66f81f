/**
 * The agents of the dashboard's tests: a lead that spawns and collects
 * children (the engine's parent tools) and asks people (`ask`, answered
 * with an {@link Approval}), a city child that looks a city up
 * with a tool whose arguments and result hold secrets (to prove redaction)
 * and records a structured answer, and the scripts that make them end in
 * each way a timeline shows. Test-only: not exported.
 */
import { preflightSchema, type ScriptTurn } from "@errand/core";
import { parentTools } from "@errand/engine";
import { type Agent, askTool, defineAgent, defineTool, scriptedModel } from "@errand/runtime";
import { z } from "zod";

/** The parent agent: plays `input.script` with `spawn_agents` and `collect_agents`. */
export const LEAD = "lead";
/** The child agent: plays `input.script` with `lookup_population`, records a `CityAnswer`. */
export const CITY = "city";

/** A city whose lookup answers with more than the inline limit: its result is stored as a blob. */
export const BIG_CITY = "Bigville";

/** The secret the lookup tool is called with and answers with; it must never reach the page. */
export const LOOKUP_SECRET = "sk-dashboard-test-secret-0123456789";

/** What a city child records. */
const CityAnswer = z.object({ city: z.string(), population: z.number().int() });

/** {@link CityAnswer} as the JSON Schema a spawn item carries. */
export const cityAnswerSchema: Record<string, unknown> = (() => {
  const checked = preflightSchema(CityAnswer);
  if (!checked.ok) throw new Error(checked.reason);
  return checked.jsonSchema;
})();

const lookupPopulation = defineTool({
  name: "lookup_population",
  description: "The population of a city.",
  parameters: z.object({ city: z.string(), apiKey: z.string() }),
  handler: ({ city }) => ({
    city,
    population: 1_000 * city.length,
    source: { name: "census", token: LOOKUP_SECRET },
    ...(city.startsWith("Big") ? { history: "x".repeat(40_000) } : {}),
  }),
});

/**
 * Gates the `await_gate` tool waits on: a test opens one by name when it
 * wants the run to go on. Gates live in this process, with the in-process worker.
 */
const gates = new Map<string, { opened: Promise<void>; open(): void }>();

function gate(name: string) {
  let entry = gates.get(name);
  if (!entry) {
    let open = () => {};
    const opened = new Promise<void>((resolve) => {
      open = resolve;
    });
    entry = { opened, open };
    gates.set(name, entry);
  }
  return entry;
}

/** Lets the runs waiting on gate `name` go on. */
export function openGate(name: string): void {
  gate(name).open();
}

const awaitGate = defineTool({
  name: "await_gate",
  description: "Waits until the test opens the gate.",
  parameters: z.object({ gate: z.string() }),
  handler: async ({ gate: name }) => {
    await gate(name).opened;
    return { gate: name, opened: true };
  },
});

/** A city child that waits at gate `name`, then records `city`. */
export function gatedThenRecord(name: string, city: string): ScriptTurn[] {
  return [
    { say: `Waiting at gate ${name}.`, call: [{ tool: "await_gate", args: { gate: name } }] },
    record(city, 1_000 * city.length),
  ];
}

/** The answer schema of the lead's `ask` tool. */
const Approval = z.object({ approve: z.boolean(), note: z.string() });

/** The lead and city agents on the scripted model. */
export function dashboardTestAgents(): Agent[] {
  const common = { instructions: "Follow your script.", model: scriptedModel(), maxSteps: 8 };
  return [
    defineAgent({
      ...common,
      name: LEAD,
      scriptFromInput: true,
      tools: [...parentTools(), askTool({ answerSchema: Approval })],
    }),
    defineAgent({
      ...common,
      name: CITY,
      scriptFromInput: true,
      tools: [lookupPopulation, awaitGate],
      outputSchema: CityAnswer,
    }),
  ];
}

const record = (city: string, population: number | string): ScriptTurn => ({
  call: [{ tool: "structured_output", args: { city, population } }],
});

/** A city child that looks the city up, then records it. */
export function lookupThenRecord(city: string): ScriptTurn[] {
  return [
    {
      say: `Looking up ${city}.`,
      call: [{ tool: "lookup_population", args: { city, apiKey: LOOKUP_SECRET } }],
    },
    record(city, 1_000 * city.length),
  ];
}

/** A city child whose first answer is refused (invalid), then corrected. */
export function invalidThenRecord(city: string): ScriptTurn[] {
  return [record(city, "many"), record(city, 42)];
}

/** A city child that waits a minute before answering: cancel it. */
export function slowChild(text = "still thinking"): ScriptTurn[] {
  return [{ say: text, sleepMs: 60_000 }];
}

/**
 * How deep {@link deepCallThenRecord}'s arguments nest in the dashboard's
 * tests: far deeper than any view shows, yet within the inline limits (9
 * characters a level, 13,500 of 16,000), so that the call's arguments stay in
 * its event rather than being logged as a blob and a preview.
 */
export const DEEP_CALL_LEVELS = 1_500;

/**
 * A city child whose model calls `lookup_population` with arguments nested
 * `levels` objects deep (`{ "city": { "city": … } }`, sent as the JSON text
 * a model sends), which the tool refuses, then records `Deep`.
 */
export function deepCallThenRecord(levels: number): ScriptTurn[] {
  const args = `${'{"city":'.repeat(levels)}"Deep"${"}".repeat(levels)}`;
  return [{ call: [{ tool: "lookup_population", args }] }, record("Deep", 1)];
}

/** A spawn item of a city child playing `script`. */
export function cityItem(script: ScriptTurn[], metadata?: Record<string, string>) {
  return {
    agent: CITY,
    input: { script },
    outputSchema: cityAnswerSchema,
    ...(metadata === undefined ? {} : { metadata }),
  };
}

/** The lead's script: spawn `children`, collect them all (waiting), then sum up. */
export function leadScript(children: ReturnType<typeof cityItem>[]): ScriptTurn[] {
  return [
    { call: [{ tool: "spawn_agents", args: { agents: children } }] },
    { call: [{ tool: "collect_agents", args: { wait: true } }] },
    { say: "All children collected." },
  ];
}
