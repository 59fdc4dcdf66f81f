/**
 * The parent tools of a candidate, answered from the recorded run's
 * children (docs/architecture/evaluations.md#recorded-children): the
 * evaluation lends the candidate parent services of its own, so
 * `spawn_agents` and `collect_agents` run their usual code but fire nothing.
 * An item of `spawn_agents` whose agent, input and output schema equal a
 * child the recorded run spawned is answered with that child's runId; a
 * `collect_agents` reads those children's stored results. An item no
 * recorded child matches is an unrecorded call: under `fail` the case
 * fails, otherwise the item alone fails with `unrecorded_call` (an
 * evaluation never fires a child, so `live` cannot run it either).
 */
import type { RunState } from "@errand/core";
import { batch } from "@errand/core/ops";
import { FatalToolError } from "@errand/runtime";
import { DEFAULT_PARENT_LIMITS } from "../parents/limits.js";
import { brandParentServices, type ParentServices } from "../parents/parent-services.js";
import type { SpawnItem, SpawnResult } from "../parents/spawn-children.js";
import type { CollectOptions, CollectResult } from "../reads/collect.js";
import { COLLECT_TOOL } from "../reads/collect.js";
import type { UnrecordedCallPolicy } from "./evaluation-record.js";
import { canonicalJson } from "./json-diff.js";
import type { CallLedger } from "./recorded-tools.js";

/** How the recorded children's results are read: the client's `collect`. */
export type CollectRuns = (
  runIds: readonly string[],
  options: CollectOptions,
) => Promise<CollectResult>;

/** How long a `collect_agents` with `wait` waits for a recorded child that has not settled yet. */
const RECORDED_CHILD_WAIT_MS = 30_000;

const SPAWN_TOOL = "spawn_agents";

function childKey(item: { agent?: unknown; input?: unknown; outputSchema?: unknown }): string {
  return canonicalJson({
    agent: item.agent,
    input: item.input ?? null,
    outputSchema: item.outputSchema,
  });
}

function asItems(args: unknown): unknown[] {
  const agents = (args as { agents?: unknown } | undefined)?.agents;
  return Array.isArray(agents) ? agents : [];
}

function asResults(result: unknown): unknown[] {
  const results = (result as { results?: unknown } | undefined)?.results;
  return Array.isArray(results) ? results : [];
}

/** The runIds of the children each spawned item made in `state`, by the item's key, in spawn order. */
function recordedChildren(state: RunState): Map<string, string[]> {
  const byKey = new Map<string, string[]>();
  for (const step of state.steps) {
    for (const call of step.calls) {
      if (call.name !== SPAWN_TOOL || call.outcome?.kind !== "result" || !call.outcome.ok) continue;
      const results = asResults(call.outcome.result);
      asItems(call.args).forEach((item, index) => {
        const spawned = results[index] as { ok?: unknown; runId?: unknown } | undefined;
        if (spawned?.ok !== true || typeof spawned.runId !== "string") return;
        const key = childKey(item as SpawnItem);
        byKey.set(key, [...(byKey.get(key) ?? []), spawned.runId]);
      });
    }
  }
  return byKey;
}

/** Parent services that answer from `state`'s recorded children. */
export function recordedParentServices(
  state: RunState,
  collectRuns: CollectRuns,
  policy: UnrecordedCallPolicy,
  ledger: CallLedger,
): ParentServices {
  const available = recordedChildren(state);
  const spawned: string[] = [];
  return brandParentServices({
    limits: DEFAULT_PARENT_LIMITS,
    async spawn(call, items): Promise<SpawnResult> {
      const outcomes: SpawnResult["results"] = [];
      for (const item of items) {
        const runId = available.get(childKey(item))?.shift();
        if (runId !== undefined) {
          spawned.push(runId);
          outcomes.push({ ok: true as const, runId, agent: item.agent });
          continue;
        }
        await ledger.unrecorded(call.callId, { tool: SPAWN_TOOL, args: item, policy });
        if (policy === "fail") {
          throw new FatalToolError(
            `${SPAWN_TOOL} spawned ${item.agent} with an input no child of the recorded run had (unrecorded_call), and the evaluation's policy is to fail the case`,
            { code: "unrecorded_call" },
          );
        }
        const message = `no child of the recorded run ran ${item.agent} with this input, and an evaluation fires no child`;
        outcomes.push({
          ok: false as const,
          agent: item.agent,
          error: { code: "unrecorded_call", message },
          retryable: false,
        });
      }
      await ledger.answered(call.callId, "log");
      const answer = batch(outcomes);
      return answer.succeeded > 0
        ? { ...answer, nextAction: { tool: COLLECT_TOOL, args: { wait: true } } }
        : answer;
    },
    async collect(request) {
      const runIds = request.runIds ?? spawned;
      const page = await collectRuns(runIds, {
        ...(request.limit === undefined ? {} : { limit: request.limit }),
        ...(request.cursor === undefined ? {} : { cursor: request.cursor }),
        ...(request.wait ? { waitMs: RECORDED_CHILD_WAIT_MS } : {}),
      });
      return { page };
    },
  });
}
