/**
 * The steady workload: runs of five kinds (structured, plain, parents with
 * children, slow, failing), fired one by one at a steady pace while faults
 * strike. Each fired run remembers the status it must settle with.
 */
import type { Errand, FireSpec } from "@errand/engine";
import { CHAOS_AGENTS } from "./chaos-agents.js";
import { type Random, randomInt } from "./random.js";

/** The kinds of runs fired. */
const RUN_KINDS = ["structured", "plain", "parent", "slow", "failing"] as const;

/** One kind of run. */
type RunKind = (typeof RUN_KINDS)[number];

/** A run the workload fired. */
export interface FiredRun {
  runId: string;
  kind: RunKind;
  /** The status the run must settle with. */
  expected: "succeeded" | "failed";
}

/** The children a parent run spawns. */
const CHILDREN_PER_PARENT = 2;

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
  }
}

/** Fires `count` runs of random kinds, one every `intervalMs`, pushing each onto `fired` as it goes. */
export async function fireWorkload(
  errand: Errand,
  random: Random,
  count: number,
  intervalMs: number,
  fired: FiredRun[],
): Promise<void> {
  for (let n = 0; n < count; n += 1) {
    const kind = RUN_KINDS[randomInt(random, 0, RUN_KINDS.length - 1)] ?? "plain";
    const { runId } = await errand.fire(specOf(kind, n));
    fired.push({ runId, kind, expected: kind === "failing" ? "failed" : "succeeded" });
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
