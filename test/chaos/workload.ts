/**
 * The steady workload: runs of six kinds (structured, plain, parents with
 * children, slow, failing, and stepped: several steps with a pause in each),
 * fired one by one at a steady pace while faults strike. Each fired run
 * remembers the status it must settle with. A fire
 * refused as retryable without a run (Redis out of memory) is made again
 * after a pause, as a producer would; one refused with its runId was
 * accepted (its run must settle like any other).
 */
import { isErrandError } from "@errand/core";
import type { Errand, FireSpec } from "@errand/engine";
import { CHAOS_AGENTS } from "./chaos-agents.js";
import { type Random, randomInt } from "./random.js";

/** One kind of run. */
export type RunKind = "structured" | "plain" | "parent" | "slow" | "failing" | "stepped";

/** The kinds `pnpm chaos` fires, each as likely as the others. */
const CHAOS_RUN_KINDS: readonly RunKind[] = ["structured", "plain", "parent", "slow", "failing"];

/** A run the workload fired. */
export interface FiredRun {
  runId: string;
  kind: RunKind;
  /** The status the run must settle with. */
  expected: "succeeded" | "failed";
}

/** The children a parent run spawns. */
const CHILDREN_PER_PARENT = 2;

/** The steps of a stepped run before its answer, and the pause in each. */
const STEPPED_RUN = { steps: 4, pauseMs: 1_000 } as const;

/** The spec of a run of `kind`. */
function specOf(kind: RunKind, n: number): FireSpec {
  switch (kind) {
    case "structured":
      return {
        agent: CHAOS_AGENTS.structured,
        input: {
          script: [
            { call: [{ tool: "bump", args: {} }] },
            { call: [{ tool: "structured_output", args: { answer: `answer ${n}` } }] },
          ],
        },
      };
    case "plain":
      return {
        agent: CHAOS_AGENTS.plain,
        input: { script: [{ call: [{ tool: "bump", args: {} }] }, { say: `plain ${n}` }] },
      };
    case "parent": {
      const agents = Array.from({ length: CHILDREN_PER_PARENT }, (_, i) => ({
        agent: CHAOS_AGENTS.plain,
        input: { script: [{ sleepMs: 300 }, { say: `child ${n}.${i}` }] },
      }));
      return {
        agent: CHAOS_AGENTS.lead,
        input: {
          script: [
            { call: [{ tool: "spawn_agents", args: { agents } }] },
            { call: [{ tool: "collect_agents", args: { wait: true } }] },
            { say: `parent ${n} collected` },
          ],
        },
      };
    }
    case "slow":
      return {
        agent: CHAOS_AGENTS.plain,
        input: {
          script: [{ sleepMs: 2_000 }, { call: [{ tool: "bump", args: {} }] }, { say: "slow" }],
        },
      };
    case "failing":
      return { agent: CHAOS_AGENTS.plain, input: { script: [{ fail: `failing ${n}` }] } };
    case "stepped": {
      const step = { sleepMs: STEPPED_RUN.pauseMs, call: [{ tool: "bump", args: {} }] };
      return {
        agent: CHAOS_AGENTS.plain,
        input: {
          script: [
            ...Array.from({ length: STEPPED_RUN.steps }, () => step),
            { say: `stepped ${n}` },
          ],
        },
      };
    }
  }
}

/** The pause before a refused fire is made again. */
const REFIRE_PAUSE_MS = 250;

/** The runId of a fire, made again while it is refused as retryable without one. */
async function fireUntilAccepted(
  errand: Errand,
  spec: FireSpec,
  refusals: Map<string, number>,
): Promise<string> {
  for (;;) {
    try {
      return (await errand.fire(spec)).runId;
    } catch (error) {
      const runId = (error as { details?: { runId?: unknown } }).details?.runId;
      if (typeof runId === "string") return runId;
      if (!isErrandError(error) || !error.retryable) throw error;
      refusals.set(error.code, (refusals.get(error.code) ?? 0) + 1);
      await new Promise((resolve) => setTimeout(resolve, REFIRE_PAUSE_MS));
    }
  }
}

/**
 * Fires `count` runs of random kinds among `options.kinds` (default: those of
 * `pnpm chaos`), one every `intervalMs`, then more while `options.goOn()`
 * resolves true (default: no more; it may take its time, to pace them),
 * pushing each onto `fired` as it goes;
 * resolves with how many fires were refused, by code.
 */
export async function fireWorkload(
  errand: Errand,
  random: Random,
  count: number,
  intervalMs: number,
  fired: FiredRun[],
  options: { kinds?: readonly RunKind[]; goOn?: () => Promise<boolean> } = {},
): Promise<Record<string, number>> {
  const { kinds = CHAOS_RUN_KINDS, goOn = async () => false } = options;
  const refusals = new Map<string, number>();
  for (let n = 0; n < count || (await goOn()); n += 1) {
    const kind = kinds[randomInt(random, 0, kinds.length - 1)] ?? "plain";
    const runId = await fireUntilAccepted(errand, specOf(kind, n), refusals);
    fired.push({ runId, kind, expected: kind === "failing" ? "failed" : "succeeded" });
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  return Object.fromEntries(refusals);
}
