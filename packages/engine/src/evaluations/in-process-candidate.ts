/**
 * A candidate run in the calling process (docs/architecture/evaluations.md#evaluations):
 * through the runtime's `runSteps`, the agent loop a worker runs, against a
 * memory sink that starts with a copy of the recorded run's `run-queued`
 * (its agent the candidate's) and a `run-started` of worker `evaluation`, so
 * no event of it reaches Redis. Held to the limits of every budget the
 * recorded run counted against, on its own spend; a park fails it `parked`.
 */
import type { NewEvent, RunState } from "@errand/core";
import {
  type Agent,
  type BudgetGate,
  createMemorySink,
  isParkRequest,
  type Model,
  type PriceResponse,
  runSteps,
} from "@errand/runtime";
import type { EventStore } from "@errand/store";
import { candidateParts } from "./candidate-parts.js";
import type { UnrecordedCallPolicy } from "./evaluation-record.js";
import type { CollectRuns } from "./recorded-children.js";
import { newCallLedger } from "./recorded-tools.js";
import type { RunCandidate } from "./run-case.js";

/** What a candidate in this process runs with. */
export interface InProcessCandidate {
  store: EventStore;
  collectRuns: CollectRuns;
  agent: Agent;
  /** The model the candidate runs with; default its own. */
  model?: Model;
  priceResponse?: PriceResponse;
  tools: "recorded" | "live";
  onUnrecorded: UnrecordedCallPolicy;
  now: () => Date;
  signal: AbortSignal;
}

/** A budget gate holding the candidate to the limits of every budget the recorded run counted against, on its own spend. */
function runBudgetGate(
  queued: NonNullable<RunState["queued"]>,
  spent: () => RunState,
): BudgetGate | undefined {
  const scopes = queued.budget?.scopes;
  if (scopes === undefined) return undefined;
  return {
    async beforeRequest() {
      const state = spent();
      const tokens = state.usage.inputTokens + state.usage.outputTokens;
      const costUsd = state.steps.reduce((sum, step) => sum + (step.costUsd ?? 0), 0);
      for (const { limits } of scopes) {
        if (limits.tokens !== undefined && tokens >= limits.tokens)
          return `the run's budget of ${limits.tokens} tokens is spent`;
        if (limits.costUsd !== undefined && costUsd >= limits.costUsd)
          return `the run's budget of ${limits.costUsd} USD is spent`;
        if (limits.steps !== undefined && state.steps.length >= limits.steps)
          return `the run's budget of ${limits.steps} steps is spent`;
      }
      return undefined;
    },
  };
}

/** Runs the candidate of `options` here, on each recorded run's queued data. */
export function inProcessCandidate(options: InProcessCandidate): RunCandidate {
  return async (recorded) => {
    const queued = recorded.queued!;
    const { runId } = recorded;
    const sink = createMemorySink();
    const at = options.now().toISOString();
    const start: NewEvent[] = [
      { type: "run-queued", at, data: { ...queued, agent: options.agent.name } },
      { type: "run-started", at, data: { attempt: 1, workerId: "evaluation" } },
    ];
    await sink.append(runId, 0, start);
    const ledger = newCallLedger();
    const { agent, services } = candidateParts(options.agent, {
      recorded,
      store: options.store,
      collectRuns: options.collectRuns,
      tools: options.tools,
      onUnrecorded: options.onUnrecorded,
      ledger,
    });
    const budget = runBudgetGate(queued, () => sink.state(runId));
    const startedAt = performance.now();
    try {
      await runSteps({
        agent,
        state: sink.state(runId),
        ...(options.model === undefined ? {} : { model: options.model }),
        sink,
        signal: options.signal,
        services,
        now: options.now,
        ...(options.priceResponse === undefined ? {} : { priceResponse: options.priceResponse }),
        ...(budget === undefined ? {} : { budget }),
      });
    } catch (error) {
      if (!isParkRequest(error)) throw error;
      const failed: NewEvent = {
        type: "failed",
        at: options.now().toISOString(),
        data: {
          code: "parked",
          message: `the candidate parked (${error.message}); an evaluation cannot wait for what a parked run waits for`,
          retryable: false,
        },
      };
      await sink.append(runId, sink.state(runId).seq, [failed]);
    }
    const latencyMs = Math.round(performance.now() - startedAt);
    return { state: sink.state(runId), latencyMs, ledger };
  };
}
