/**
 * How a worker runs a case of an evaluation
 * (docs/architecture/evaluations.md#candidates-on-the-fleet): a run whose
 * `run-queued` carries `evaluation` runs its agent with the parts
 * `candidate-parts.ts` makes from the recorded run `recordedRunId` — its
 * tools answered from that run's log in recorded mode, so no handler runs
 * but under `onUnrecorded: "live"`, and its spawns answered from that run's
 * children —, each call's answer written down for the evaluation
 * (`evaluation-calls.ts`).
 */
import { foldRun, type RunState } from "@errand/core";
import type { Agent } from "@errand/runtime";
import type { EventStore } from "@errand/store";
import type { EngineKeys } from "../engine-keys.js";
import type { RedisConnection } from "../redis/connection.js";
import { candidateParts } from "./candidate-parts.js";
import { storedCallLedger } from "./evaluation-calls.js";
import type { CollectRuns } from "./recorded-children.js";

/** What the worker lends a case of an evaluation. */
export interface FleetRunPartsContext {
  store: EventStore;
  redis: RedisConnection;
  keys: EngineKeys;
  collectRuns: CollectRuns;
}

/**
 * `agent` and `services` as the run `state` runs them: unchanged for a run
 * that is no case of an evaluation, else answered from its recorded run.
 */
export async function fleetRunParts(
  context: FleetRunPartsContext,
  state: RunState,
  agent: Agent,
  services: Readonly<Record<string, unknown>> | undefined,
): Promise<{ agent: Agent; services?: Readonly<Record<string, unknown>> }> {
  const evaluation = state.queued?.evaluation;
  if (evaluation === undefined) return services === undefined ? { agent } : { agent, services };
  const { evaluationId, recordedRunId, tools, onUnrecorded } = evaluation;
  const recorded = foldRun(await context.store.readLog(recordedRunId), recordedRunId);
  const ledger = storedCallLedger(
    context.redis,
    context.keys.evaluationCalls(evaluationId, state.runId),
    context.store.retentionSeconds,
  );
  return candidateParts(
    agent,
    {
      recorded,
      store: context.store,
      collectRuns: context.collectRuns,
      tools,
      onUnrecorded,
      ledger,
    },
    services,
  );
}
