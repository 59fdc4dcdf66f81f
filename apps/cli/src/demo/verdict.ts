/**
 * Whether the demo's runs settled as designed: each child as its scenario
 * says (on the scripted model, also with the planned answer), and the parent
 * succeeded with a summary that matches its children's actual outcomes.
 */
import { isDeepStrictEqual } from "node:util";
import type { RunResult } from "@errand/core";
import { countStatuses } from "../run-summary.js";
import { type ChildRun, childLabel, type DemoOutcome } from "./driver.js";
import { EXPECTED } from "./scenarios.js";

/** The demo's verdict: empty `problems` means every run settled as designed. */
export interface DemoVerdict {
  problems: string[];
}

/** What is wrong with one child, if anything. */
function childProblem(run: ChildRun, scripted: boolean): string | undefined {
  const label = childLabel(run);
  if (run.plan === undefined) return `${label}: a child the demo did not plan`;
  if (run.result === undefined) return `${label}: did not settle in time`;
  const { scenario, answer } = run.plan;
  // On a real model only the cancel is in the demo's hands; the rest is the model's doing.
  if (!scripted && scenario !== "cancelled-mid-run") return undefined;
  const expected = EXPECTED[scenario];
  const { status, error } = run.result;
  if (status !== expected.status || error?.code !== expected.errorCode) {
    const got = error === undefined ? status : `${status} (${error.code})`;
    const want =
      expected.errorCode === undefined
        ? expected.status
        : `${expected.status} (${expected.errorCode})`;
    return `${label}: ${got}, designed to be ${want}`;
  }
  if (status === "succeeded" && !isDeepStrictEqual(run.result.output, answer)) {
    return `${label}: recorded ${JSON.stringify(run.result.output)}, designed to record ${JSON.stringify(answer)}`;
  }
  return undefined;
}

function parentProblem(
  parent: RunResult | undefined,
  children: readonly ChildRun[],
): string | undefined {
  if (parent === undefined) return "the parent did not settle in time";
  if (parent.status !== "succeeded") {
    return `the parent ${parent.status}${parent.error ? ` (${parent.error.code}: ${parent.error.message})` : ""}`;
  }
  const settled = children.flatMap((child) => (child.result ? [child.result] : []));
  const actual = countStatuses(settled);
  if (!isDeepStrictEqual(parent.output, actual)) {
    return `the parent recorded ${JSON.stringify(parent.output)}, but its children came to ${JSON.stringify(actual)}`;
  }
  return undefined;
}

/** Judges the demo's outcome against its plan of `planned` children. */
export function judgeDemo(outcome: DemoOutcome, planned: number, scripted: boolean): DemoVerdict {
  const problems: string[] = [];
  if (outcome.children.length !== planned) {
    problems.push(`the parent spawned ${outcome.children.length} children, not ${planned}`);
  }
  for (const child of outcome.children) {
    const problem = childProblem(child, scripted);
    if (problem) problems.push(problem);
  }
  const parent = parentProblem(outcome.parent, outcome.children);
  if (parent) problems.push(parent);
  return { problems };
}
