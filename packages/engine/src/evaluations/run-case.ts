/**
 * One case of an evaluation: the recorded run's log read and folded (its
 * result, tool calls and children), the candidate run on the same input,
 * schema and limits — in this process (`in-process-candidate.ts`) or on the
 * fleet (`fleet-candidate.ts`) —, then both sides scored and compared.
 */
import { ErrandError, foldRun, type RunResult, type RunState, settleRun } from "@errand/core";
import type { EventStore } from "@errand/store";
import { PARENT_TOOLS } from "./candidate-parts.js";
import type { CaseScore, CaseSide, CaseToolCall, EvaluationCase } from "./evaluation-record.js";
import { jsonEqual, jsonFieldChanges } from "./json-diff.js";
import { caseToolCalls } from "./recorded-calls.js";
import type { MemoryLedger } from "./recorded-tools.js";
import type { EvaluationCaseInput, Scorer } from "./scorers.js";

/** What the candidate made of a recorded run: its folded log, how long it took, and where its calls were answered from. */
interface CandidateRun {
  state: RunState;
  latencyMs: number;
  ledger: MemoryLedger;
}

/** Runs the candidate on the recorded run's queued data (in this process, or on the fleet). */
export type RunCandidate = (recorded: RunState) => Promise<CandidateRun>;

/** What running a case needs from the evaluation. */
export interface CaseRunner {
  store: EventStore;
  runCandidate: RunCandidate;
  scorers: readonly Scorer[];
  signal: AbortSignal;
}

/** The ms from `from` to `to` (ISO-8601), 0 when either is missing. */
export function elapsedMs(from: string | undefined, to: string | undefined): number {
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

function withAnsweredFrom(
  calls: CaseToolCall[],
  candidate: RunState,
  ledger: MemoryLedger,
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
  const { state: candidateState, latencyMs, ledger } = await runner.runCandidate(recorded.state);
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
    unrecordedCalls: ledger.unrecordedCalls,
  };
}
