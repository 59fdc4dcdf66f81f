/**
 * The demo's children: which city each one asks about and which of five
 * scenarios its script plays, with the outcome each scenario is designed to
 * settle to (docs/architecture/structured-output.md's rules, one by one).
 */
import type { RunResult, Script } from "@errand/core";
import { STRUCTURED_OUTPUT_TOOL } from "@errand/runtime/ops";

/** The five ways a child is designed to end. */
export const SCENARIOS = [
  "recorded-at-once",
  "invalid-then-corrected",
  "finished-without-answer",
  "cancelled-mid-run",
  "model-failure",
] as const;
export type Scenario = (typeof SCENARIOS)[number];

/** How a scenario is designed to settle. */
export interface ExpectedOutcome {
  status: RunResult["status"];
  /** The error code of a run that did not succeed. */
  errorCode?: string;
}

/** The design of each scenario. */
export const EXPECTED: Readonly<Record<Scenario, ExpectedOutcome>> = {
  "recorded-at-once": { status: "succeeded" },
  "invalid-then-corrected": { status: "succeeded" },
  "finished-without-answer": { status: "failed", errorCode: "no_structured_output" },
  "cancelled-mid-run": { status: "cancelled", errorCode: "cancelled" },
  "model-failure": { status: "failed", errorCode: "model_error" },
};

/** How long the child the demo cancels thinks (it is cancelled long before). */
const SLOW_CHILD_SLEEP_MS = 60_000;

/** Cities the children ask about, with their (rounded) populations. */
const CITIES: readonly (readonly [string, number])[] = [
  ["Tokyo", 13_960_000],
  ["Lagos", 15_390_000],
  ["São Paulo", 11_450_000],
  ["Mumbai", 12_440_000],
  ["Cairo", 10_100_000],
  ["Jakarta", 10_560_000],
  ["Mexico City", 9_210_000],
  ["Istanbul", 15_460_000],
  ["Seoul", 9_590_000],
  ["Lima", 10_000_000],
  ["London", 8_870_000],
  ["Bogotá", 7_900_000],
];

/** The answer a child records: the city and its population. */
interface CityAnswer {
  city: string;
  population: number;
}

/** One child of the demo's parent. */
export interface ChildPlan {
  /** Its place among the children, from 0. */
  index: number;
  scenario: Scenario;
  /** What the child is asked (its number, from 1), and the script it plays on the scripted model. */
  input: { child: number; city: string; scenario: Scenario; script: Script };
  /** The answer a succeeding child records. */
  answer: CityAnswer;
}

function record(answer: unknown): Script[number] {
  return { call: [{ tool: STRUCTURED_OUTPUT_TOOL, args: answer }] };
}

/** The turns that make `scenario` happen. */
function scenarioScript(scenario: Scenario, answer: CityAnswer): Script {
  switch (scenario) {
    case "recorded-at-once":
      return [record(answer)];
    case "invalid-then-corrected":
      return [record({ city: answer.city, population: "about ten million" }), record(answer)];
    case "finished-without-answer":
      return [{ say: `I could not find how many people live in ${answer.city}.` }];
    case "cancelled-mid-run":
      return [{ say: "Still counting…", sleepMs: SLOW_CHILD_SLEEP_MS }, record(answer)];
    case "model-failure":
      // A request the provider refuses (400) is not retried, on the scripted model and over HTTP alike.
      return [{ fail: "the model provider refused the request", status: 400 }];
  }
}

/**
 * The scenario of the child at `index`: the first five children play each
 * scenario once, the rest alternate between the two that succeed.
 */
function scenarioAt(index: number): Scenario {
  if (index < SCENARIOS.length) return SCENARIOS[index] as Scenario;
  return index % 2 === 1 ? "recorded-at-once" : "invalid-then-corrected";
}

/** The plan of `count` children. */
export function planChildren(count: number): ChildPlan[] {
  return Array.from({ length: count }, (_, index) => {
    const [city, population] = CITIES[index % CITIES.length] as readonly [string, number];
    const scenario = scenarioAt(index);
    const answer = { city, population };
    const script = scenarioScript(scenario, answer);
    return { index, scenario, answer, input: { child: index + 1, city, scenario, script } };
  });
}
