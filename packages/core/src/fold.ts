/**
 * The fold: `foldRun(events) → RunState`, pure and exhaustive. A run settles
 * at its first terminal event; an event at or below the folded `seq` is a
 * repeat and is skipped; a gap in `seq` is an error.
 */
import { ErrandError } from "./errors.js";
import type { EventType, RunEvent, RunEventOf, Usage } from "./events.js";
import type { RunState, StepState, WaitpointState } from "./run-state.js";

/** The error message of a run that finished without recording its structured output. */
export const NO_STRUCTURED_OUTPUT_MESSAGE =
  "the run finished without recording a structured output: the model never called the structured-output tool with a valid answer";

/**
 * The state of a run whose log is empty. Every field is present from the
 * start (unset ones `undefined`), so that each state the fold makes has the
 * same shape as the one before: copying it stays cheap for the JavaScript engine.
 */
export function initialRunState(runId: string): RunState {
  return {
    runId,
    seq: 0,
    status: "pending",
    queued: undefined,
    createdAt: undefined,
    startedAt: undefined,
    settledAt: undefined,
    attempts: 0,
    workerId: undefined,
    steps: [],
    usage: { inputTokens: 0, outputTokens: 0 },
    output: undefined,
    cancelRequested: undefined,
    error: undefined,
    text: undefined,
    parked: undefined,
    parkedMs: undefined,
    waitpoints: [],
  };
}

/** True once a terminal event was folded. */
export function isSettled(state: RunState): boolean {
  return state.status === "succeeded" || state.status === "failed" || state.status === "cancelled";
}

/**
 * One handler per event type: a new type without a handler fails the
 * typecheck. A handler returns `state` itself when the event changes
 * nothing, otherwise a new object (never one shared with `state`).
 */
type Evolvers = { [T in EventType]: (state: RunState, event: RunEventOf<T>) => RunState };

/** The step numbered `step`: each number is one step of the state, most often its last, so the search starts there. */
function stepOf(state: RunState, step: number): StepState | undefined {
  return state.steps.findLast((s) => s.step === step);
}

/** Returns the state with one call of one step replaced by `update(call)`. */
function updateCall(
  state: RunState,
  step: number,
  callId: string,
  update: (call: StepState["calls"][number]) => StepState["calls"][number],
): RunState {
  const current = stepOf(state, step);
  if (!current?.calls.some((c) => c.callId === callId)) return state;
  const calls = current.calls.map((c) => (c.callId === callId ? update(c) : c));
  return { ...state, steps: state.steps.map((s) => (s.step === step ? { ...s, calls } : s)) };
}

/**
 * Returns the state with the waiting waitpoint `token` replaced by
 * `close(waitpoint)`; unchanged when there is no such waitpoint or it was
 * closed already (the first answer or timeout stands).
 */
function closeWaitpoint(
  state: RunState,
  token: string,
  close: (waitpoint: WaitpointState) => WaitpointState,
): RunState {
  const open = state.waitpoints.find((w) => w.token === token && w.status === "waiting");
  if (open === undefined) return state;
  return { ...state, waitpoints: state.waitpoints.map((w) => (w === open ? close(w) : w)) };
}

/** An optional count summed: absent only when both sides are. */
function addCount(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0);
}

/**
 * Two usages summed. The cache and reasoning counts appear only once a step
 * reported them, so a log without them folds to the usage it always did.
 */
function addUsage(total: Usage, step: Usage): Usage {
  const cachedInputTokens = addCount(total.cachedInputTokens, step.cachedInputTokens);
  const cacheWriteTokens = addCount(total.cacheWriteTokens, step.cacheWriteTokens);
  const reasoningTokens = addCount(total.reasoningTokens, step.reasoningTokens);
  return {
    inputTokens: total.inputTokens + step.inputTokens,
    outputTokens: total.outputTokens + step.outputTokens,
    ...(cachedInputTokens === undefined ? {} : { cachedInputTokens }),
    ...(cacheWriteTokens === undefined ? {} : { cacheWriteTokens }),
    ...(reasoningTokens === undefined ? {} : { reasoningTokens }),
  };
}

/**
 * `state.parkedMs` once a `run-started` at `at` ends the park the run is in,
 * if any: the park's length (from its `run-parked`) added.
 */
function resumedParkedMs(state: RunState, at: string): number | undefined {
  if (state.parked === undefined) return state.parkedMs;
  const parkMs = Math.max(0, Date.parse(at) - Date.parse(state.parked.since));
  return (state.parkedMs ?? 0) + parkMs;
}

const evolvers: Evolvers = {
  "run-queued": (state, e) => ({ ...state, status: "queued", queued: e.data, createdAt: e.at }),
  "run-started": (state, e) => ({
    ...state,
    status: "running",
    attempts: Math.max(state.attempts, e.data.attempt),
    workerId: e.data.workerId,
    startedAt: state.startedAt ?? e.at,
    parked: undefined,
    parkedMs: resumedParkedMs(state, e.at),
  }),
  "model-responded": (state, e) => ({
    ...state,
    steps: [
      ...state.steps.filter((s) => s.step !== e.data.step),
      {
        step: e.data.step,
        ...(e.data.text === undefined ? {} : { text: e.data.text }),
        finish: e.data.finish,
        usage: e.data.usage,
        calls: e.data.calls.map((c) => ({ ...c, called: false })),
        ...(e.data.items === undefined ? {} : { items: e.data.items }),
        ...(e.data.responseId === undefined ? {} : { responseId: e.data.responseId }),
        ...(e.data.costUsd === undefined ? {} : { costUsd: e.data.costUsd }),
      },
    ],
    usage: addUsage(state.usage, e.data.usage),
  }),
  "tool-called": (state, e) =>
    updateCall(state, e.data.step, e.data.callId, (c) => ({ ...c, called: true })),
  "tool-result": (state, e) =>
    updateCall(state, e.data.step, e.data.callId, (c) => ({
      ...c,
      outcome: {
        kind: "result",
        ok: e.data.ok,
        truncated: e.data.truncated,
        ...(e.data.result === undefined ? {} : { result: e.data.result }),
        ...(e.data.error === undefined ? {} : { error: e.data.error }),
        ...(e.data.ref === undefined ? {} : { ref: e.data.ref }),
      },
    })),
  "run-parked": (state, e) => ({ ...state, parked: { ...e.data, since: e.at } }),
  "waitpoint-created": (state, e) =>
    state.waitpoints.some((w) => w.token === e.data.token)
      ? state
      : {
          ...state,
          waitpoints: [...state.waitpoints, { ...e.data, status: "waiting", createdAt: e.at }],
        },
  "waitpoint-completed": (state, e) =>
    closeWaitpoint(state, e.data.token, (w) => ({
      ...w,
      status: "answered",
      answer: e.data.answer,
      ...(e.data.answeredBy === undefined ? {} : { answeredBy: e.data.answeredBy }),
      closedAt: e.at,
    })),
  "waitpoint-timed-out": (state, e) =>
    closeWaitpoint(state, e.data.token, (w) => ({ ...w, status: "timed-out", closedAt: e.at })),
  "output-recorded": (state, e) => {
    if (state.output) return state;
    const recorded = updateCall(state, e.data.step, e.data.callId, (c) => ({
      ...c,
      outcome: { kind: "recorded" },
    }));
    return {
      ...recorded,
      output: { value: e.data.output, step: e.data.step, callId: e.data.callId },
    };
  },
  refused: (state, e) =>
    e.data.step === undefined || e.data.callId === undefined
      ? state
      : updateCall(state, e.data.step, e.data.callId, (c) => ({
          ...c,
          outcome: { kind: "refused", reason: e.data.reason, message: e.data.message },
        })),
  "cancel-requested": (state, e) =>
    state.cancelRequested ? state : { ...state, cancelRequested: e.data },
  cancelled: (state, e) => {
    const reason = e.data.reason ?? state.cancelRequested?.reason;
    const message = reason ? `the run was cancelled: ${reason}` : "the run was cancelled";
    return {
      ...state,
      status: "cancelled",
      settledAt: e.at,
      error: { code: "cancelled", message, retryable: false },
    };
  },
  failed: (state, e) => ({ ...state, status: "failed", settledAt: e.at, error: e.data }),
  finished: (state, e) => {
    const text = e.data.text === undefined ? {} : { text: e.data.text };
    if (state.queued?.outputSchema !== undefined && state.output === undefined) {
      const error = {
        code: "no_structured_output",
        message: NO_STRUCTURED_OUTPUT_MESSAGE,
        retryable: false,
      };
      return { ...state, ...text, status: "failed", settledAt: e.at, error };
    }
    return { ...state, ...text, status: "succeeded", settledAt: e.at };
  },
};

/**
 * Folds one more event into a state. Repeats (`seq` ≤ the folded seq) and
 * anything after the run settled leave the state unchanged; a gap in `seq`
 * throws an `ErrandError` with code `seq_gap`, an event of another run one
 * with code `invalid_event`.
 */
export function applyEvent(state: RunState, event: RunEvent): RunState {
  if (event.runId !== state.runId) {
    throw new ErrandError(
      "invalid_event",
      `an event of run ${event.runId} cannot be folded into run ${state.runId}; fold each run's log on its own`,
      { details: { runId: state.runId, eventRunId: event.runId, seq: event.seq } },
    );
  }
  if (event.seq <= state.seq) return state;
  if (event.seq !== state.seq + 1) {
    throw new ErrandError(
      "seq_gap",
      `run ${state.runId}: expected event seq ${state.seq + 1} but got ${event.seq}; the log is missing events`,
      { details: { runId: state.runId, expectedSeq: state.seq + 1, seq: event.seq } },
    );
  }
  if (isSettled(state)) return { ...state, seq: event.seq };
  const evolve = evolvers[event.type] as (s: RunState, e: RunEvent) => RunState;
  const next = evolve(state, event);
  if (next === state) return { ...state, seq: event.seq };
  // A new state, made by the evolver for this event alone: it takes its seq in place.
  next.seq = event.seq;
  return next;
}

/** Folds a run's log, in order, into its state. Pure. */
export function foldRun(events: readonly RunEvent[], runId?: string): RunState {
  const id = runId ?? events[0]?.runId ?? "";
  return events.reduce(applyEvent, initialRunState(id));
}
