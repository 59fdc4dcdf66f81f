/**
 * A candidate that live workers run (docs/architecture/evaluations.md#candidates-on-the-fleet):
 * each case is fired as a real run of the candidate's agent, pinned to its
 * version, so it goes through the fleet's queues, flow control and budget
 * rules like any run. Its `run-queued` carries `evaluation` (the evaluation,
 * the recorded run, `tools`, `onUnrecorded`), which is how its worker knows
 * to answer its tools from the recorded run's log (`fleet-run-parts.ts`).
 * The case waits for the run to settle by following its log, then reads
 * where each call was answered from (`evaluation-calls.ts`).
 */
import {
  ErrandError,
  foldRun,
  type RunEvent,
  type RunEventOf,
  type RunState,
  settleRun,
} from "@errand/core";
import type { FireSpec } from "../client/fire-spec.js";
import type { EngineKeys } from "../engine-keys.js";
import { chooseRegistration, isLive, readAgentRegistrations } from "../queues/registry.js";
import type { RedisConnection } from "../redis/connection.js";
import { takeCallLedger } from "./evaluation-calls.js";
import type { UnrecordedCallPolicy } from "./evaluation-record.js";
import { elapsedMs, type RunCandidate } from "./run-case.js";

/** A candidate run by live workers: an agent by name, and its version (default: its newest live one). */
export interface FleetCandidate {
  agent: string;
  version?: string;
}

/** What `run-queued.evaluation` holds: which evaluation a run is a case of, and how its worker answers its tools. */
export type EvaluationMark = NonNullable<RunEventOf<"run-queued">["data"]["evaluation"]>;

/** The metadata key of a case's run: the recorded run it evaluates. */
export const EVALUATION_OF_KEY = "evaluationOf";

/** What a candidate on the fleet needs from the client. */
export interface FleetContext {
  redis: RedisConnection;
  keys: EngineKeys;
  now: () => Date;
  /** Fires one run with `evaluation` on its `run-queued`; resolves its runId, throws its refusal. */
  fireCase(spec: FireSpec, evaluation: EvaluationMark): Promise<string>;
  /** The run's events, followed until it settles or `signal` fires. */
  followLog(runId: string, signal: AbortSignal): AsyncIterable<RunEvent>;
}

/**
 * The version of `candidate` that live workers run: the one named, or the
 * newest live one. Throws `agent_version_unavailable` when no live worker
 * runs it (nothing is written before).
 */
export async function liveCandidateVersion(
  context: FleetContext,
  candidate: FleetCandidate,
): Promise<string> {
  const now = context.now();
  const registrations = await readAgentRegistrations(context.redis, context.keys, candidate.agent);
  const live = registrations.filter(
    (registration) =>
      isLive(registration, now) &&
      (candidate.version === undefined || registration.version === candidate.version),
  );
  const version = chooseRegistration(live, now)?.version;
  if (version !== undefined) return version;
  const named =
    candidate.version === undefined ? "" : ` of version ${JSON.stringify(candidate.version)}`;
  throw new ErrandError(
    "agent_version_unavailable",
    `no worker${named} of agent ${JSON.stringify(candidate.agent)} is live, so it cannot be evaluated on the fleet; start one, or evaluate agent code in this process`,
    {
      details: {
        agent: candidate.agent,
        ...(candidate.version === undefined ? {} : { agentVersion: candidate.version }),
      },
      retryable: true,
    },
  );
}

/** The tightest of the recorded run's budgets, as `fire` takes a budget: the candidate's own. */
function tightestBudget(queued: NonNullable<RunState["queued"]>): FireSpec["budget"] {
  const scopes = queued.budget?.scopes ?? [];
  const least = (pick: (limits: (typeof scopes)[number]["limits"]) => number | undefined) => {
    const values = scopes.flatMap(({ limits }) => {
      const value = pick(limits);
      return value === undefined ? [] : [value];
    });
    return values.length === 0 ? undefined : Math.min(...values);
  };
  const tokens = least((limits) => limits.tokens);
  const costUsd = least((limits) => limits.costUsd);
  const steps = least((limits) => limits.steps);
  if (tokens === undefined && costUsd === undefined && steps === undefined) return undefined;
  return {
    ...(tokens === undefined ? {} : { tokens }),
    ...(costUsd === undefined ? {} : { costUsd }),
    ...(steps === undefined ? {} : { steps }),
  };
}

/** The fire spec of the case of `recorded` for version `version` of `agent`. */
function caseSpec(
  recorded: RunState,
  agent: string,
  version: string,
  evaluationId: string,
): FireSpec {
  const queued = recorded.queued!;
  const { deadlineAt } = queued.limits;
  const budget = tightestBudget(queued);
  return {
    agent,
    agentVersion: version,
    input: queued.input,
    ...(queued.outputSchema === undefined ? {} : { outputSchema: queued.outputSchema }),
    metadata: { ...queued.metadata, [EVALUATION_OF_KEY]: recorded.runId },
    ...(queued.priority === undefined ? {} : { priority: queued.priority }),
    ...(queued.concurrencyKey === undefined ? {} : { concurrencyKey: queued.concurrencyKey }),
    ...(queued.tenant === undefined ? {} : { tenant: queued.tenant }),
    ...(queued.modelSettings === undefined ? {} : { modelSettings: queued.modelSettings }),
    ...(budget === undefined ? {} : { budget }),
    ...(deadlineAt === undefined || recorded.createdAt === undefined
      ? {}
      : { deadlineMs: Math.max(1, Date.parse(deadlineAt) - Date.parse(recorded.createdAt)) }),
    // A resumed evaluation finds the run of a case it fired before instead of firing it again.
    idempotencyKey: `evaluation:${evaluationId}:${recorded.runId}`,
  };
}

/** What a case on the fleet is fired with. */
export interface FleetCaseOptions {
  evaluationId: string;
  agent: string;
  version: string;
  tools: "recorded" | "live";
  onUnrecorded: UnrecordedCallPolicy;
  signal: AbortSignal;
}

/** Runs each case as a run of `options.version` of `options.agent` on the fleet. */
export function fleetCandidate(context: FleetContext, options: FleetCaseOptions): RunCandidate {
  const { evaluationId, agent, version, tools, onUnrecorded, signal } = options;
  return async (recorded) => {
    const runId = await context.fireCase(caseSpec(recorded, agent, version, evaluationId), {
      evaluationId,
      recordedRunId: recorded.runId,
      tools,
      onUnrecorded,
    });
    const log: RunEvent[] = [];
    for await (const event of context.followLog(runId, signal)) log.push(event);
    const state = foldRun(log, runId);
    const result = settleRun(state);
    if (result === undefined) {
      throw new ErrandError("cancelled", "the evaluation was interrupted");
    }
    const ledger = await takeCallLedger(
      context.redis,
      context.keys.evaluationCalls(evaluationId, runId),
      state,
    );
    return { state, latencyMs: elapsedMs(result.startedAt, result.settledAt), ledger };
  };
}
