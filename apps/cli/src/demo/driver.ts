/**
 * The demo's run: fires the parent, finds its children as it spawns them,
 * cancels the slow ones once they have started, and waits — with progress —
 * for every child and then the parent to settle.
 */
import type { RunResult } from "@errand/core";
import type { Errand } from "@errand/engine";
import type { Progress } from "../progress.js";
import { waitForResults } from "../wait-results.js";
import { DEMO_PARENT } from "./agents.js";
import { inputOf, spawnedChildren, untilStarted } from "./children.js";
import { DemoSummary, jsonSchemaOf, parentInput } from "./parent-plan.js";
import type { ChildPlan } from "./scenarios.js";

/** Why the demo cancels a child. */
const CANCEL_REASON = "the demo cancels this child mid-run";

/** One child as it ran. */
export interface ChildRun {
  runId: string;
  /** Its plan, found from its input; `undefined` for a child the demo did not plan. */
  plan?: ChildPlan;
  /** Its result, once settled. */
  result?: RunResult;
}

/** What the demo's runs came to. */
export interface DemoOutcome {
  parentRunId: string;
  parent?: RunResult;
  /** In plan order; unplanned children last. */
  children: ChildRun[];
}

/** Options of {@link runDemo}. */
export interface DemoOptions {
  children: readonly ChildPlan[];
  progress: Progress;
  /** Aborts on Ctrl-C or when the demo's time is up. */
  signal: AbortSignal;
  /** How long to wait for the runs to settle, in ms. */
  timeoutMs: number;
}

function planOf(input: unknown, children: readonly ChildPlan[]): ChildPlan | undefined {
  if (typeof input !== "object" || input === null || !("child" in input)) return undefined;
  return children.find((plan) => plan.index + 1 === input.child);
}

function planOrder(run: ChildRun): number {
  return run.plan?.index ?? Number.MAX_SAFE_INTEGER;
}

/** Runs the demo through `errand` (a worker running the demo agents and a collector must be up). */
export async function runDemo(errand: Errand, options: DemoOptions): Promise<DemoOutcome> {
  const { children, progress, signal } = options;
  const deadline = Date.now() + options.timeoutMs;
  const { runId: parentRunId } = await errand.fire({
    agent: DEMO_PARENT,
    input: parentInput(children),
    outputSchema: jsonSchemaOf(DemoSummary),
  });
  const childIds = await spawnedChildren(errand, parentRunId, signal);
  const runs: ChildRun[] = await Promise.all(
    childIds.map(async (runId) => {
      const plan = planOf(await inputOf(errand, runId), children);
      return plan === undefined ? { runId } : { runId, plan };
    }),
  );
  runs.sort((a, b) => planOrder(a) - planOrder(b));
  const cancels = runs
    .filter((run) => run.plan?.scenario === "cancelled-mid-run")
    .map(async ({ runId }) => {
      await untilStarted(errand, runId, signal);
      if (!signal.aborted) await errand.cancel(runId, { reason: CANCEL_REASON, by: "errand demo" });
    });
  const labels = new Map(runs.map((run) => [run.runId, childLabel(run)]));
  const results = await waitForResults(
    errand,
    runs.map((run) => run.runId),
    {
      timeoutMs: Math.max(0, deadline - Date.now()),
      onSettled: (result) => progress.settled(result, labels.get(result.runId)),
    },
  );
  await Promise.all(cancels);
  const [parent] = await waitForResults(errand, [parentRunId], {
    timeoutMs: Math.max(0, deadline - Date.now()),
  });
  return {
    parentRunId,
    ...(parent === undefined ? {} : { parent }),
    children: runs.map((run, i) => {
      const result = results[i];
      return result === undefined ? run : { ...run, result };
    }),
  };
}

/** How a child is named on screen: `#3 São Paulo (finished-without-answer)`. */
export function childLabel(run: ChildRun): string {
  if (run.plan === undefined) return run.runId;
  return `#${run.plan.index + 1} ${run.plan.answer.city} (${run.plan.scenario})`;
}
