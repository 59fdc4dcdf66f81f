/**
 * `RunResult`: the one canonical shape of a settled run, the same in the API,
 * the CLI's `--json` and the dashboard.
 */
import { z } from "zod";
import {
  BudgetLimits,
  BudgetPolicy,
  type BudgetSpent,
  innermostScope,
  roundUsd,
} from "./budget.js";
import { RunError, Usage } from "./events.js";
import type { RunState, SettledStatus } from "./run-state.js";
import { parkedWaitpoint } from "./waitpoint.js";

const BudgetSpentShape = z.object({
  tokens: z.number().nonnegative(),
  costUsd: z.number().nonnegative(),
  steps: z.number().nonnegative(),
  runs: z.number().nonnegative(),
});

/**
 * A run's budget as results show it: the innermost budget it counts against
 * (held by `scopeRunId`), what the run itself spent (from its log) and, when
 * read live from Redis (`result`, `runs show`, the dashboard), what the whole
 * budget spent and has left (`tree`), and the dimension that exhausted it.
 */
export const RunBudgetView = z.object({
  scopeRunId: z.string(),
  limits: BudgetLimits,
  onExceeded: BudgetPolicy,
  run: BudgetSpentShape,
  tree: z
    .object({
      spent: BudgetSpentShape,
      remaining: BudgetLimits,
      exhausted: z.string().optional(),
    })
    .optional(),
});
export type RunBudgetView = z.infer<typeof RunBudgetView>;

/** The settled result of a run. */
export const RunResult = z.object({
  runId: z.string(),
  agent: z.string(),
  status: z.enum(["succeeded", "failed", "cancelled"]),
  output: z.unknown().optional(),
  text: z.string().optional(),
  error: RunError.optional(),
  parentRunId: z.string().optional(),
  rootRunId: z.string(),
  /** The tenant the run belongs to (`run-queued.tenant`), when it was fired under one. */
  tenant: z.string().optional(),
  attempts: z.number().int().nonnegative(),
  steps: z.number().int().nonnegative(),
  usage: Usage,
  /** What the run's model responses cost in US dollars, when its worker priced them. */
  costUsd: z.number().nonnegative().optional(),
  budget: RunBudgetView.optional(),
  createdAt: z.string(),
  startedAt: z.string().optional(),
  settledAt: z.string().optional(),
});
export type RunResult = z.infer<typeof RunResult>;

function settledStatus(state: RunState): SettledStatus | undefined {
  const { status } = state;
  return status === "succeeded" || status === "failed" || status === "cancelled"
    ? status
    : undefined;
}

/** The error with exactly its three fields, in one order, whatever the event that carried it held. */
function canonicalError({ code, message, retryable }: RunError): RunError {
  return { code, message, retryable };
}

/** What the run's priced responses cost, or `undefined` when none was priced. */
function costOf(state: RunState): number | undefined {
  const priced = state.steps.filter((step) => step.costUsd !== undefined);
  if (priced.length === 0) return undefined;
  return roundUsd(priced.reduce((sum, step) => sum + (step.costUsd ?? 0), 0));
}

/** The run's own spend and the limits of its innermost budget, when it has one. */
function budgetOf(state: RunState): { budget?: RunBudgetView } {
  const budget = state.queued?.budget;
  if (budget === undefined) return {};
  const scope = innermostScope(budget);
  const run: BudgetSpent = {
    tokens: state.usage.inputTokens + state.usage.outputTokens,
    costUsd: costOf(state) ?? 0,
    steps: state.steps.length,
    runs: state.steps.length > 0 ? 1 : 0,
  };
  return {
    budget: { scopeRunId: scope.runId, limits: scope.limits, onExceeded: scope.onExceeded, run },
  };
}

/** `costUsd` and `budget`, for the results of runs that have them. */
function spendOf(state: RunState): { costUsd?: number; budget?: RunBudgetView } {
  const costUsd = costOf(state);
  return { ...(costUsd === undefined ? {} : { costUsd }), ...budgetOf(state) };
}

/**
 * The `RunResult` of a settled run, or `undefined` while it is not settled.
 * Pure: the same state always gives an object with the same keys in the same
 * order, so its JSON is byte-for-byte stable.
 */
export function settleRun(state: RunState): RunResult | undefined {
  const status = settledStatus(state);
  if (status === undefined) return undefined;
  const { queued } = state;
  return {
    runId: state.runId,
    agent: queued?.agent ?? "",
    status,
    ...(status === "succeeded" && state.output !== undefined ? { output: state.output.value } : {}),
    ...(state.text === undefined ? {} : { text: state.text }),
    ...(status !== "succeeded" && state.error ? { error: canonicalError(state.error) } : {}),
    ...(queued?.parentRunId === undefined ? {} : { parentRunId: queued.parentRunId }),
    rootRunId: queued?.rootRunId ?? state.runId,
    ...(queued?.tenant === undefined ? {} : { tenant: queued.tenant }),
    attempts: state.attempts,
    steps: state.steps.length,
    usage: state.usage,
    ...spendOf(state),
    createdAt: state.createdAt ?? state.settledAt ?? "",
    ...(state.startedAt === undefined ? {} : { startedAt: state.startedAt }),
    ...(state.settledAt === undefined ? {} : { settledAt: state.settledAt }),
  };
}

/** What a parked run waits for, from its last `run-parked`. */
export interface RunWaiting {
  /** For people: `waiting for 4 of 12 runs to settle`. */
  reason: string;
  /** When it parked. */
  since: string;
  /** How many runs it waits for. */
  runs: number;
  /** The waitpoint it waits on for an answer from outside, when it parked on one. */
  waitpoint?: RunWaitpoint;
}

/** What a run parked on a waitpoint asks, for whoever answers it. */
export interface RunWaitpoint {
  token: string;
  question: string;
  answerSchema?: Record<string, unknown>;
  timeoutAt?: string;
}

/** The waitpoint a parked run waits on, as {@link RunWaiting} shows it. */
function waitingOn(state: RunState): RunWaitpoint | undefined {
  const waitpoint = parkedWaitpoint(state);
  if (waitpoint === undefined || waitpoint.status !== "waiting") return undefined;
  const { token, question, answerSchema, timeoutAt } = waitpoint;
  return {
    token,
    question,
    ...(answerSchema === undefined ? {} : { answerSchema }),
    ...(timeoutAt === undefined ? {} : { timeoutAt }),
  };
}

/** What a parked run waits for, from its last `run-parked` (and its waitpoint, if any). */
function waitingOf(parked: NonNullable<RunState["parked"]>, state: RunState): RunWaiting {
  const waitpoint = waitingOn(state);
  return {
    reason: parked.reason,
    since: parked.since,
    runs: parked.waitForChildren ?? parked.waitFor.length,
    ...(waitpoint === undefined ? {} : { waitpoint }),
  };
}

/**
 * A run as far as its log goes: its `RunResult` once settled, else the same
 * fields so far, with status `queued` or `running` and, while it is parked,
 * what it waits for. What `errand runs show` and the dashboard show.
 */
export type RunSoFar = Omit<RunResult, "status"> & {
  status: RunResult["status"] | "queued" | "running";
  waiting?: RunWaiting;
};

/** The {@link RunSoFar} of a folded run. Pure. */
export function runSoFar(state: RunState): RunSoFar {
  const settled = settleRun(state);
  if (settled !== undefined) return settled;
  const { queued, parked } = state;
  return {
    runId: state.runId,
    agent: queued?.agent ?? "",
    status: state.status === "running" ? "running" : "queued",
    ...(state.text === undefined ? {} : { text: state.text }),
    ...(queued?.parentRunId === undefined ? {} : { parentRunId: queued.parentRunId }),
    rootRunId: queued?.rootRunId ?? state.runId,
    ...(queued?.tenant === undefined ? {} : { tenant: queued.tenant }),
    attempts: state.attempts,
    steps: state.steps.length,
    usage: state.usage,
    ...spendOf(state),
    createdAt: state.createdAt ?? "",
    ...(state.startedAt === undefined ? {} : { startedAt: state.startedAt }),
    ...(parked === undefined ? {} : { waiting: waitingOf(parked, state) }),
  };
}
