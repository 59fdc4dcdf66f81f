/**
 * The fold: `foldRun(events) → RunState`, pure and exhaustive. A run settles
 * at its first terminal event; an event at or below the folded `seq` is a
 * repeat and is skipped; a gap in `seq` is an error.
 *
 * One set of handlers serves two entries (docs/architecture/events.md#the-fold-in-place):
 * `applyEvent` leaves the state it is given as it was and returns a new one,
 * copying an array only when the event changes it; `applyEventInPlace`
 * changes a state its caller owns, so that folding a log of n events, one
 * step after another, costs O(n) and not O(n²). `foldRun` folds in place
 * into a state of its own.
 */
import { ErrandError } from "./errors.js";
import type { EventType, RunError, RunEvent, RunEventOf, Usage } from "./events.js";
import { FoldDraft } from "./fold-draft.js";
import type { RunState, SettledStatus, StepState, WaitpointState } from "./run-state.js";

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
 * typecheck. A handler changes the draft's state to what the event makes of
 * it, and leaves it as it is when the event changes nothing.
 */
type Evolvers = { [T in EventType]: (draft: FoldDraft, event: RunEventOf<T>) => void };

/**
 * Replaces one call of one step by `update(call)`; nothing when the step or
 * the call is not there. Each number is one step of the state, most often
 * its last, so the search starts there.
 */
function updateCall(
  draft: FoldDraft,
  step: number,
  callId: string,
  update: (call: StepState["calls"][number]) => StepState["calls"][number],
): void {
  const index = draft.state.steps.findLastIndex((s) => s.step === step);
  const current = draft.state.steps[index];
  if (!current?.calls.some((c) => c.callId === callId)) return;
  const calls = current.calls.map((c) => (c.callId === callId ? update(c) : c));
  draft.replaceStep(index, { ...current, calls });
}

/**
 * Replaces the waiting waitpoint `token` by `close(waitpoint)`; nothing when
 * there is no such waitpoint or it was closed already (the first answer or
 * timeout stands). The newest waitpoint is the one most often closed, so
 * the search starts there.
 */
function closeWaitpoint(
  draft: FoldDraft,
  token: string,
  close: (waitpoint: WaitpointState) => WaitpointState,
): void {
  const index = draft.state.waitpoints.findLastIndex((w) => w.token === token);
  const open = draft.state.waitpoints[index];
  if (open?.status !== "waiting") return;
  draft.replaceWaitpoint(index, close(open));
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
  const inputTokens = total.inputTokens + step.inputTokens;
  const outputTokens = total.outputTokens + step.outputTokens;
  // Neither side has an optional count (most models report none): the sum is made at once.
  if (
    total.cachedInputTokens === undefined &&
    step.cachedInputTokens === undefined &&
    total.cacheWriteTokens === undefined &&
    step.cacheWriteTokens === undefined &&
    total.reasoningTokens === undefined &&
    step.reasoningTokens === undefined
  ) {
    return { inputTokens, outputTokens };
  }
  const cachedInputTokens = addCount(total.cachedInputTokens, step.cachedInputTokens);
  const cacheWriteTokens = addCount(total.cacheWriteTokens, step.cacheWriteTokens);
  const reasoningTokens = addCount(total.reasoningTokens, step.reasoningTokens);
  return {
    inputTokens,
    outputTokens,
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

/** The state settled by a terminal event at `at`. */
function settle(state: RunState, status: SettledStatus, at: string, error?: RunError): void {
  state.status = status;
  state.settledAt = at;
  if (error !== undefined) state.error = error;
}

const evolvers: Evolvers = {
  "run-queued": ({ state }, e) => {
    state.status = "queued";
    state.queued = e.data;
    state.createdAt = e.at;
  },
  "run-started": ({ state }, e) => {
    state.status = "running";
    state.attempts = Math.max(state.attempts, e.data.attempt);
    state.workerId = e.data.workerId;
    state.startedAt = state.startedAt ?? e.at;
    state.parkedMs = resumedParkedMs(state, e.at);
    state.parked = undefined;
  },
  "model-responded": (draft, e) => {
    draft.putStep({
      step: e.data.step,
      ...(e.data.text === undefined ? {} : { text: e.data.text }),
      finish: e.data.finish,
      usage: e.data.usage,
      calls: e.data.calls.map((c) => ({ ...c, called: false })),
      ...(e.data.items === undefined ? {} : { items: e.data.items }),
      ...(e.data.responseId === undefined ? {} : { responseId: e.data.responseId }),
      ...(e.data.costUsd === undefined ? {} : { costUsd: e.data.costUsd }),
    });
    draft.state.usage = addUsage(draft.state.usage, e.data.usage);
  },
  "tool-called": (draft, e) =>
    updateCall(draft, e.data.step, e.data.callId, (c) => ({ ...c, called: true })),
  "tool-result": (draft, e) =>
    updateCall(draft, e.data.step, e.data.callId, (c) => ({
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
  "run-parked": ({ state }, e) => {
    state.parked = { ...e.data, since: e.at };
  },
  "waitpoint-created": (draft, e) => {
    if (draft.state.waitpoints.some((w) => w.token === e.data.token)) return;
    draft.addWaitpoint({ ...e.data, status: "waiting", createdAt: e.at });
  },
  "waitpoint-completed": (draft, e) =>
    closeWaitpoint(draft, e.data.token, (w) => ({
      ...w,
      status: "answered",
      answer: e.data.answer,
      ...(e.data.answeredBy === undefined ? {} : { answeredBy: e.data.answeredBy }),
      closedAt: e.at,
    })),
  "waitpoint-timed-out": (draft, e) =>
    closeWaitpoint(draft, e.data.token, (w) => ({ ...w, status: "timed-out", closedAt: e.at })),
  "output-recorded": (draft, e) => {
    if (draft.state.output) return;
    updateCall(draft, e.data.step, e.data.callId, (c) => ({ ...c, outcome: { kind: "recorded" } }));
    draft.state.output = { value: e.data.output, step: e.data.step, callId: e.data.callId };
  },
  refused: (draft, e) => {
    if (e.data.step === undefined || e.data.callId === undefined) return;
    updateCall(draft, e.data.step, e.data.callId, (c) => ({
      ...c,
      outcome: { kind: "refused", reason: e.data.reason, message: e.data.message },
    }));
  },
  "cancel-requested": ({ state }, e) => {
    state.cancelRequested ??= e.data;
  },
  cancelled: ({ state }, e) => {
    const reason = e.data.reason ?? state.cancelRequested?.reason;
    const message = reason ? `the run was cancelled: ${reason}` : "the run was cancelled";
    settle(state, "cancelled", e.at, { code: "cancelled", message, retryable: false });
  },
  failed: ({ state }, e) => settle(state, "failed", e.at, e.data),
  finished: ({ state }, e) => {
    if (e.data.text !== undefined) state.text = e.data.text;
    if (state.queued?.outputSchema === undefined || state.output !== undefined) {
      settle(state, "succeeded", e.at);
      return;
    }
    settle(state, "failed", e.at, {
      code: "no_structured_output",
      message: NO_STRUCTURED_OUTPUT_MESSAGE,
      retryable: false,
    });
  },
};

/**
 * Whether `event` is the one after `state`'s seq: false for a repeat (at or
 * below the folded seq); an `ErrandError` with code `seq_gap` for a gap, one
 * with code `invalid_event` for an event of another run.
 */
function isNextEvent(state: RunState, event: RunEvent): boolean {
  if (event.runId !== state.runId) {
    throw new ErrandError(
      "invalid_event",
      `an event of run ${event.runId} cannot be folded into run ${state.runId}; fold each run's log on its own`,
      { details: { runId: state.runId, eventRunId: event.runId, seq: event.seq } },
    );
  }
  if (event.seq <= state.seq) return false;
  if (event.seq !== state.seq + 1) {
    throw new ErrandError(
      "seq_gap",
      `run ${state.runId}: expected event seq ${state.seq + 1} but got ${event.seq}; the log is missing events`,
      { details: { runId: state.runId, expectedSeq: state.seq + 1, seq: event.seq } },
    );
  }
  return true;
}

/** Folds the next event into the draft: after the run settled, only its seq. */
function evolve(draft: FoldDraft, event: RunEvent): void {
  if (!isSettled(draft.state)) {
    const evolver = evolvers[event.type] as (d: FoldDraft, e: RunEvent) => void;
    evolver(draft, event);
  }
  draft.state.seq = event.seq;
}

/**
 * Folds one more event into a state, and returns the state after it: a new
 * object, which shares with `state` what the event leaves alone (the steps
 * array, unless the event changes a step). `state` and everything it holds
 * stay as they were. Repeats (`seq` ≤ the folded seq) and anything after the
 * run settled leave the state unchanged; a gap in `seq` throws an
 * `ErrandError` with code `seq_gap`, an event of another run one with code
 * `invalid_event`. An event that changes a step copies the steps array: a
 * caller folding many events into a state of its own folds them in place
 * (`applyEventInPlace`, docs/architecture/events.md#the-fold-in-place).
 */
export function applyEvent(state: RunState, event: RunEvent): RunState {
  if (!isNextEvent(state, event)) return state;
  const next = { ...state };
  evolve(new FoldDraft(next, false), event);
  return next;
}

/**
 * {@link applyEvent} into `state` itself: the same rules and the same state
 * after, at a cost that does not grow with the run (a step is added or
 * replaced in place, never the steps array copied). Returns `state`.
 * `state` must be the caller's own: made by `initialRunState`, `foldRun`,
 * {@link copyForInPlaceFold} or this function, and read by nothing that
 * expects it to stay as it was (a state of `applyEvent` shares its arrays
 * with the state it came from). The steps and waitpoints it holds are never
 * changed: a changed one is replaced by a new object.
 */
export function applyEventInPlace(state: RunState, event: RunEvent): RunState {
  if (isNextEvent(state, event)) evolve(new FoldDraft(state, true), event);
  return state;
}

/**
 * A copy of `state` that {@link applyEventInPlace} may fold into: its own
 * top level, steps array and waitpoints array (the steps and waitpoints
 * themselves are shared: the fold never changes them). Costs one pass over
 * the steps, once, where folding into copies costs one per event.
 */
export function copyForInPlaceFold(state: RunState): RunState {
  return { ...state, steps: [...state.steps], waitpoints: [...state.waitpoints] };
}

/**
 * Folds a run's log, in order, into its state: in place into a state of its
 * own ({@link applyEventInPlace}), so a log of n events costs O(n). Pure.
 */
export function foldRun(events: readonly RunEvent[], runId?: string): RunState {
  const id = runId ?? events[0]?.runId ?? "";
  return events.reduce(applyEventInPlace, initialRunState(id));
}
