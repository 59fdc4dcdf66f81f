/**
 * One case of an evaluation: the recorded run's log read and folded (its
 * result, tool calls and children), the candidate run in this process on
 * the same input, schema and limits — its events in a memory sink, so
 * nothing reaches the production log — its model live, its tools answered
 * from the log (`recorded`) or run (`live`), its spawns answered from the
 * recorded children; then both sides scored and compared.
 */
import {
  ErrandError,
  foldRun,
  type NewEvent,
  type RunResult,
  type RunState,
  settleRun,
} from "@errand/core";
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
import { PARENT_SERVICES } from "../parents/parent-services.js";
import type {
  CaseScore,
  CaseSide,
  CaseToolCall,
  EvaluationCase,
  UnrecordedCallPolicy,
} from "./evaluation-record.js";
import { jsonEqual, jsonFieldChanges } from "./json-diff.js";
import { caseToolCalls, recordedCalls } from "./recorded-calls.js";
import { type CollectRuns, recordedParentServices } from "./recorded-children.js";
import { type CallLedger, newCallLedger, recordedTool } from "./recorded-tools.js";
import type { EvaluationCaseInput, Scorer } from "./scorers.js";

/** What running a case needs from the evaluation. */
export interface CaseRunner {
  store: EventStore;
  collectRuns: CollectRuns;
  candidate: Agent;
  /** The model the candidate runs with; default its own. */
  model?: Model;
  priceResponse?: PriceResponse;
  tools: "recorded" | "live";
  onUnrecorded: UnrecordedCallPolicy;
  scorers: readonly Scorer[];
  now: () => Date;
  signal: AbortSignal;
}

/** The tools the parent services answer, whose calls are always answered from the log. */
const PARENT_TOOLS = new Set(["spawn_agents", "collect_agents"]);

function elapsedMs(from: string | undefined, to: string | undefined): number {
  if (from === undefined || to === undefined) return 0;
  return Math.max(0, Date.parse(to) - Date.parse(from));
}

function sideOf(result: RunResult, latencyMs: number): CaseSide {
  return {
    status: result.status,
    ...(result.output === undefined ? {} : { output: result.output }),
    ...(result.text === undefined ? {} : { text: result.text }),
    ...(result.error === undefined
      ? {}
      : { error: { code: result.error.code, message: result.error.message } }),
    costUsd: result.costUsd ?? 0,
    tokens: result.usage.inputTokens + result.usage.outputTokens,
    steps: result.steps,
    latencyMs,
  };
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

/** Reads and folds the recorded run: its state and result; throws `invalid_spec` when it has not settled. */
async function readRecorded(
  store: EventStore,
  runId: string,
): Promise<{ state: RunState; result: RunResult }> {
  const state = foldRun(await store.readLog(runId), runId);
  const result = settleRun(state);
  if (state.queued === undefined) {
    throw new ErrandError(
      "not_found",
      `run ${runId} has no log: it was never fired or has expired`,
    );
  }
  if (result === undefined) {
    throw new ErrandError(
      "invalid_spec",
      `run ${runId} has not settled: only a settled run can be evaluated`,
    );
  }
  return { state, result };
}

/** The candidate's state after running it in memory on the recorded run's queued data. */
async function runCandidate(
  runner: CaseRunner,
  recorded: RunState,
  ledger: CallLedger,
): Promise<RunState> {
  const queued = recorded.queued!;
  const { runId } = recorded;
  const sink = createMemorySink();
  const at = runner.now().toISOString();
  const start: NewEvent[] = [
    { type: "run-queued", at, data: { ...queued, agent: runner.candidate.name } },
    { type: "run-started", at, data: { attempt: 1, workerId: "evaluation" } },
  ];
  await sink.append(runId, 0, start);
  const calls = recordedCalls(recorded, runner.store);
  const tools =
    runner.tools === "live"
      ? runner.candidate.tools
      : runner.candidate.tools.map((tool) =>
          PARENT_TOOLS.has(tool.name)
            ? tool
            : recordedTool(tool, calls, runner.onUnrecorded, ledger),
        );
  const services = {
    [PARENT_SERVICES]: recordedParentServices(
      recorded,
      runner.collectRuns,
      runner.onUnrecorded,
      ledger,
    ),
  };
  const budget = runBudgetGate(queued, () => sink.state(runId));
  try {
    return await runSteps({
      agent: { ...runner.candidate, tools },
      state: sink.state(runId),
      ...(runner.model === undefined ? {} : { model: runner.model }),
      sink,
      signal: runner.signal,
      services,
      now: runner.now,
      ...(runner.priceResponse === undefined ? {} : { priceResponse: runner.priceResponse }),
      ...(budget === undefined ? {} : { budget }),
    });
  } catch (error) {
    if (!isParkRequest(error)) throw error;
    const failed: NewEvent = {
      type: "failed",
      at: runner.now().toISOString(),
      data: {
        code: "parked",
        message: `the candidate parked (${error.message}); an evaluation cannot wait for what a parked run waits for`,
        retryable: false,
      },
    };
    await sink.append(runId, sink.state(runId).seq, [failed]);
    return sink.state(runId);
  }
}

function withAnsweredFrom(
  calls: CaseToolCall[],
  candidate: RunState,
  ledger: CallLedger,
): CaseToolCall[] {
  const callIds = candidate.steps.flatMap((step) =>
    step.calls
      .filter((c) => c.outcome !== undefined && c.outcome.kind !== "recorded")
      .map((c) => c.callId),
  );
  return calls.map((call, index) => {
    const callId = callIds[index];
    const from = PARENT_TOOLS.has(call.tool)
      ? "log"
      : callId === undefined
        ? undefined
        : ledger.answeredFrom.get(callId);
    return from === undefined ? call : { ...call, answeredFrom: from };
  });
}

async function scoreCase(
  scorers: readonly Scorer[],
  original: RunResult,
  candidate: RunResult,
  input: EvaluationCaseInput,
): Promise<CaseScore[]> {
  const scores: CaseScore[] = [];
  for (const scorer of scorers) {
    const { score, note } = await scorer.score(original, candidate, input);
    const clamped = Number.isFinite(score) ? Math.min(1, Math.max(0, score)) : 0;
    scores.push({ scorer: scorer.name, score: clamped, ...(note === undefined ? {} : { note }) });
  }
  return scores;
}

function answerOf(result: RunResult | CaseSide): unknown {
  return result.output !== undefined ? result.output : (result.text ?? null);
}

/** Runs case `index` (recorded run `runId`) and returns it, scored. Throws when the run cannot be read or the evaluation is aborted. */
export async function runCase(
  runner: CaseRunner,
  runId: string,
  index: number,
): Promise<EvaluationCase> {
  const recorded = await readRecorded(runner.store, runId);
  const ledger = newCallLedger();
  const startedAt = performance.now();
  const candidateState = await runCandidate(runner, recorded.state, ledger);
  const latencyMs = Math.round(performance.now() - startedAt);
  if (runner.signal.aborted) throw new ErrandError("cancelled", "the evaluation was interrupted");
  const candidate = settleRun(candidateState)!;
  const queued = recorded.state.queued!;
  const input: EvaluationCaseInput = {
    runId,
    agent: queued.agent,
    input: queued.input,
    ...(queued.outputSchema === undefined ? {} : { outputSchema: queued.outputSchema }),
    metadata: queued.metadata ?? {},
  };
  const original = recorded.result;
  const originalSide = sideOf(original, elapsedMs(original.startedAt, original.settledAt));
  const candidateSide = sideOf(candidate, latencyMs);
  const changed =
    original.status !== candidate.status || !jsonEqual(answerOf(original), answerOf(candidate));
  return {
    runId,
    index,
    agent: queued.agent,
    changed,
    failed: candidate.status !== "succeeded",
    original: originalSide,
    candidate: candidateSide,
    scores: await scoreCase(runner.scorers, original, candidate, input),
    diff: changed ? jsonFieldChanges(answerOf(original), answerOf(candidate)) : [],
    toolCalls: {
      original: caseToolCalls(recorded.state),
      candidate: withAnsweredFrom(caseToolCalls(candidateState), candidateState, ledger),
    },
    unrecordedCalls: ledger.unrecorded,
  };
}
