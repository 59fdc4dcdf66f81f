/**
 * The job processor of a run (docs/architecture.md §7): read the log and fold it; a settled
 * run is left alone; a run whose cancel was requested is settled `cancelled`;
 * otherwise a new attempt is announced (`run-started`, fenced) and the run
 * continues from where its log ends, one fenced append per step. A run that
 * resumes after parking announces its current attempt again: parking is
 * waiting, not failing, so it is not counted in `RunResult.attempts`. When an
 * append is refused because the log moved on, the log is read again: a
 * settled run is left alone, a cancel is honoured, and otherwise another
 * attempt owns the run, so this one stops writing. A parked run (its last
 * `run-parked` not yet followed by a `run-started`) whose job comes back
 * while runs it waits for are still pending parks again without writing:
 * its log says once what it waits for, however often its job is re-checked.
 *
 * Traced (docs/architecture.md §7, Traces): the job is a `process {queue}`
 * span under the run's stored `send` span, and each attempt an
 * `invoke_agent {agent}` span stored in its `run-started`.
 *
 * A run parked on a waitpoint parks again while it waits for an answer; past
 * the waitpoint's timeout, its `waitpoint-timed-out` goes in the append of
 * the `run-started` that resumes it.
 *
 * A `run-started` refused because the log moved on between the read and the
 * start (an answer came while the run was parked, or a stale worker that lost
 * the job's lock appended a step) is tried again from the log, read again, up
 * to {@link MAX_START_TRIES} times: the job's holder takes the run over
 * instead of leaving it to a writer that may be dead.
 */
import {
  applyEvent,
  ErrandError,
  foldRun,
  isErrandError,
  isSettled,
  isWaitpointOverdue,
  type NewEvent,
  parkedWaitpoint,
  type RunError,
  type RunState,
  type RunStatus,
  runNotFound,
  type TraceContext,
} from "@errand/core";
import type { Logger } from "@errand/runtime";
import {
  isParkRequest,
  type LiveChannel,
  type ParkRequest,
  type RetryPolicy,
  runSteps,
} from "@errand/runtime";
import { type EventStore, isSeqConflict, markChecked } from "@errand/store";
import { settleCancelled } from "../client/settle-cancelled.js";
import type { HeldSlots, RunAdmission } from "../flow-control/run-admission.js";
import { runLogger } from "../logger.js";
import type { EngineResources } from "../resources.js";
import { inAttemptSpan, lastAttemptTrace, recordAttemptEnd } from "../tracing/agent-span.js";
import { inProcessSpan } from "../tracing/messaging-spans.js";
import { traceField } from "../tracing/trace-context.js";
import type { ResolvedAgent } from "./agent-models.js";
import { type AttemptSinkContext, buildAttemptSink } from "./attempt-sink.js";
import type { CancelListener } from "./cancel-listener.js";
import { redisBlobStore } from "./redis-blobs.js";

/**
 * What processing a run needs: the worker's resources, shared by every job,
 * and its own parts, those its attempts' sinks are built from among them.
 */
export interface RunProcessorContext extends EngineResources, AttemptSinkContext {
  /** The worker's agents with their models, by name. */
  agents: ReadonlyMap<string, ResolvedAgent>;
  workerId: string;
  /** The queue the worker takes its jobs from: the destination its `process` spans name. */
  queue: string;
  cancels: CancelListener;
  /** Passed to tools as `ctx.services`. */
  services?: Readonly<Record<string, unknown>>;
  /** How failed model requests are retried. */
  retry?: Partial<RetryPolicy>;
  /** The runs of `runIds` that have no stored result yet: what a parked run still waits for. */
  pendingOf(runIds: readonly string[]): Promise<string[]>;
  /** Where streaming models publish their deltas (architecture §6). */
  live?: LiveChannel;
  /** The fleet's concurrency gate: an open run starts only once admitted (docs/architecture.md §7). */
  admission?: RunAdmission;
}

/** How a job of a run ended for this worker. */
export type ProcessOutcome =
  /** This attempt carried the run to its end; `status` is how it settled, `error` why it failed. */
  | { kind: "settled"; status: RunStatus; error?: RunError }
  /** The run had settled before (or was settled by another writer meanwhile). */
  | { kind: "already-settled"; status: RunStatus; error?: RunError }
  /** A cancel was requested: this worker wrote `cancelled`. */
  | { kind: "cancelled" }
  /** Another attempt owns the run: this one stopped writing. */
  | { kind: "lost" }
  /**
   * A tool parked the run until `waitFor` settle, or until its waitpoint is
   * answered or times out (`waitpoint`, with the instant of its timeout):
   * the step so far is logged, the run stays open.
   */
  | { kind: "parked"; waitFor: readonly string[]; waitpoint?: ParkedWaitpoint }
  /** The open run was fired for `agentVersion`, which this worker does not run: nothing written. */
  | { kind: "other-version"; agentVersion: string }
  /** A concurrency limit is reached: nothing written; the job waits in the queue until `retryAtMs`. */
  | { kind: "throttled"; retryAtMs: number; limitedBy: string };

/** The waitpoint a parked run waits on: its token, and when it times out (ms), if it does. */
export interface ParkedWaitpoint {
  token: string;
  timeoutAtMs?: number;
}

/** Whether the run needs a slot: it is open and no cancel was asked for. */
function needsSlot(state: RunState): boolean {
  return !isSettled(state) && !state.cancelRequested;
}

/** How many times a job announces its attempt (`run-started`) before a refused one makes it give up. */
export const MAX_START_TRIES = 5;

/**
 * Thrown by {@link runAttempt} when its own `run-started` is refused (the log
 * moved on before the attempt began); it keeps the refusal's code, which the
 * attempt's span records.
 */
class StartRefused extends ErrandError {
  override readonly name = "StartRefused";

  constructor(readonly refusal: ErrandError) {
    super(refusal.code, `run-started refused: ${refusal.message}`, { cause: refusal });
  }
}

function isRefusedAppend(error: unknown): error is ErrandError {
  return isSeqConflict(error) || isErrandError(error, "run_settled");
}

async function readState(store: EventStore, runId: string): Promise<RunState> {
  return foldRun(await store.readLog(runId), runId);
}

/**
 * Whether the run was parked: its last step holds a call that was logged as
 * called without an outcome (only a parking tool leaves one in an open run).
 */
function wasParked(state: RunState): boolean {
  const last = state.steps.reduce<RunState["steps"][number] | undefined>(
    (latest, step) => (latest === undefined || step.step > latest.step ? step : latest),
    undefined,
  );
  return last?.calls.some((call) => call.called && call.outcome === undefined) ?? false;
}

/** The attempt the next `run-started` announces: the same after parking, else the next one. */
function nextAttempt(state: RunState): number {
  return wasParked(state) ? Math.max(state.attempts, 1) : state.attempts + 1;
}

/** The outcome of a settled run: its status, and its error when it failed. */
function settledOutcome(
  kind: "settled" | "already-settled",
  state: RunState,
): Extract<ProcessOutcome, { kind: typeof kind }> {
  return state.error === undefined
    ? { kind, status: state.status }
    : { kind, status: state.status, error: state.error };
}

/**
 * What the log alone decides: a settled run is left alone; a run whose
 * cancel was requested is settled `cancelled`; otherwise `undefined`: the run
 * is open for an attempt.
 */
async function decideFromLog(
  context: RunProcessorContext,
  state: RunState,
  logger: Logger,
): Promise<ProcessOutcome | undefined> {
  if (isSettled(state)) {
    logger.info({ status: state.status, seq: state.seq }, "run already settled");
    return settledOutcome("already-settled", state);
  }
  if (!state.cancelRequested) return undefined;
  const settled = await settleCancelled(context.store, state.runId, context.now);
  logger.info({ status: settled.status }, "run cancelled");
  if (isSettled(settled) && settled.status !== "cancelled") {
    return settledOutcome("already-settled", settled);
  }
  context.runMetrics?.settled(settled);
  return { kind: "cancelled" };
}

/** After a refused append: the log, read again, decides; else another attempt owns the run. */
async function afterRefusedAppend(
  context: RunProcessorContext,
  runId: string,
  logger: Logger,
): Promise<ProcessOutcome> {
  const state = await readState(context.store, runId);
  const decided = await decideFromLog(context, state, logger);
  if (decided) return decided;
  logger.warn({ seq: state.seq }, "another attempt owns the run: this one stops writing");
  return { kind: "lost" };
}

/** The `waitpoint-timed-out` of the waitpoint the run is parked on, once past its timeout. */
function timedOutWaitpoints(state: RunState, now: Date): NewEvent[] {
  const waitpoint = parkedWaitpoint(state);
  if (waitpoint === undefined || !isWaitpointOverdue(waitpoint, now)) return [];
  return [{ type: "waitpoint-timed-out", at: now.toISOString(), data: { token: waitpoint.token } }];
}

/**
 * Whether the parked run must park again: it waits on a waitpoint not yet
 * answered nor past its timeout, or on runs still pending.
 */
async function stillParked(
  context: RunProcessorContext,
  state: RunState,
): Promise<ProcessOutcome | undefined> {
  const waitpoint = parkedWaitpoint(state);
  if (waitpoint !== undefined) {
    if (waitpoint.status !== "waiting" || isWaitpointOverdue(waitpoint, context.now())) {
      return undefined;
    }
    const { token, timeoutAt } = waitpoint;
    const timeoutAtMs = timeoutAt === undefined ? undefined : Date.parse(timeoutAt);
    return {
      kind: "parked",
      waitFor: [],
      waitpoint: timeoutAtMs === undefined ? { token } : { token, timeoutAtMs },
    };
  }
  const pending = state.parked && (await context.pendingOf(state.parked.waitFor));
  return pending && pending.length > 0 ? { kind: "parked", waitFor: pending } : undefined;
}

/**
 * How a run a tool just parked waits: for runs, or on the waitpoint the call
 * created (read back from the log); a waitpoint closed meanwhile brings the
 * job back at once.
 */
async function parkedOutcome(
  context: RunProcessorContext,
  runId: string,
  request: ParkRequest,
): Promise<ProcessOutcome> {
  if (request.waitpoint === undefined) return { kind: "parked", waitFor: request.waitFor };
  const state = await readState(context.store, runId);
  const parked = await stillParked(context, state);
  if (parked) return parked;
  const token = parkedWaitpoint(state)?.token ?? "";
  return {
    kind: "parked",
    waitFor: [],
    waitpoint: { token, timeoutAtMs: context.now().getTime() },
  };
}

/**
 * Announces a new attempt and steps the run until it settles, inside the
 * attempt's `invoke_agent` span (stored in its `run-started`, linked to
 * `previous`, the span of the attempt before it), appending through the
 * sink `attempt-sink.ts` builds. `optimistic`: the `run-started` goes to the
 * log with the first step, in one append (`optimistic-start.ts`), instead of
 * alone before it.
 */
function runAttempt(
  context: RunProcessorContext,
  { agent, model }: ResolvedAgent,
  state: RunState,
  previous: TraceContext | undefined,
  signal: AbortSignal,
  logger: Logger,
  optimistic: boolean,
): Promise<ProcessOutcome> {
  const { store } = context;
  const attempt = nextAttempt(state);
  const spanOptions = { agent: agent.name, model, runId: state.runId, attempt, previous };
  return inAttemptSpan(spanOptions, async (span) => {
    // errand's own data (the worker's id was checked when the worker started): appended unvalidated.
    const started: NewEvent = markChecked({
      type: "run-started",
      at: context.now().toISOString(),
      data: { attempt, workerId: context.workerId, ...traceField(span) },
    });
    // Logged once Redis acknowledged the run-started (the chaos audit holds the worker to it).
    const logStarted = () =>
      logger.info({ seq: state.seq + 1, resumeFromStep: state.steps.length }, "run started");
    const announced = optimistic
      ? state
      : await announce(store, state, [...timedOutWaitpoints(state, context.now()), started]);
    if (!optimistic) logStarted();
    const {
      state: begun,
      sink,
      ...budgetParts
    } = await buildAttemptSink(context, {
      state: announced,
      agent: agent.name,
      model: model.name,
      span,
      ...(optimistic ? { deferredStart: { started, onLogged: logStarted } } : {}),
    });
    const traceContent = context.traceContent ?? false;
    const settled = await runSteps({
      agent,
      model,
      state: begun,
      sink,
      blobs: redisBlobStore(store),
      signal,
      logger: context.logger,
      now: context.now,
      traceContent,
      ...(context.services === undefined ? {} : { services: context.services }),
      ...(context.retry === undefined ? {} : { retry: context.retry }),
      ...(context.live === undefined ? {} : { live: context.live }),
      // Spreads last: on Node 20 a spread followed by new keys costs microseconds.
      ...budgetParts,
    });
    recordAttemptEnd(span, settled);
    logger.info({ status: settled.status, seq: settled.seq }, "run ended");
    context.runMetrics?.settled(settled);
    return settledOutcome("settled", settled);
  });
}

/**
 * Appends the attempt's start (`run-started`, after any `waitpoint-timed-out`),
 * fenced, on its own; a refusal is thrown as {@link StartRefused}.
 */
async function announce(store: EventStore, state: RunState, start: NewEvent[]): Promise<RunState> {
  const written = await store
    .appendEvents(state.runId, state.seq, start)
    .catch((error: unknown) => {
      throw isRefusedAppend(error) ? new StartRefused(error) : error;
    });
  return written.reduce(applyEvent, state);
}

/**
 * How an attempt ended: it ran (to the run's end), a tool parked the run, or
 * the log refused one of its appends — its own `run-started` (the log moved
 * on before it began), or a later one (the first, on an optimistic start).
 * {@link decideAndRun} turns on it alone.
 */
type AttemptEnd =
  | { kind: "ran"; outcome: ProcessOutcome }
  | { kind: "parked"; request: ParkRequest }
  | { kind: "start-refused"; refusal: ErrandError }
  | { kind: "append-refused"; refusal: ErrandError };

/** Runs the attempt and tells how it ended; throws anything else (so that BullMQ retries the job). */
async function tryAttempt(...attempt: Parameters<typeof runAttempt>): Promise<AttemptEnd> {
  try {
    return { kind: "ran", outcome: await runAttempt(...attempt) };
  } catch (error) {
    if (isParkRequest(error)) return { kind: "parked", request: error };
    if (error instanceof StartRefused) return { kind: "start-refused", refusal: error.refusal };
    if (isRefusedAppend(error)) return { kind: "append-refused", refusal: error };
    throw error;
  }
}

/** How the job reached this worker. */
export interface JobDelivery {
  /**
   * Its first delivery: never retried, never taken back from a stalled
   * worker. Only then may an attempt start optimistically: a job taken back
   * announces its attempt alone first, so that the fence stops the attempt
   * it replaces. Default false.
   */
  first?: boolean;
}

/**
 * Processes the job of run `runId` for agent `agentName`. A run a tool
 * parks comes back as `parked`: the caller takes its job off the worker.
 * Throws (so that
 * BullMQ retries the job) on unexpected errors; `not_found` for a run without
 * a log; `invalid_spec` when this worker does not run the agent or the job
 * names another agent than the run's. An open run fired for another version
 * of the agent comes back as `other-version`, untouched.
 */
export async function processRun(
  context: RunProcessorContext,
  runId: string,
  agentName: string,
  delivery: JobDelivery = {},
): Promise<ProcessOutcome> {
  const resolved = context.agents.get(agentName);
  if (!resolved) {
    throw new ErrandError(
      "invalid_spec",
      `this worker does not run agent ${agentName} (job ${runId}); run every agent of a queue on each of its workers`,
    );
  }
  const held = context.cancels.hold(runId);
  let slots: HeldSlots | undefined;
  try {
    const log = await context.store.readLog(runId);
    const state = foldRun(log, runId);
    if (state.queued === undefined) {
      throw runNotFound(runId);
    }
    if (state.queued.agent !== agentName) {
      throw new ErrandError(
        "invalid_spec",
        `job ${runId} names agent ${agentName} but the run is of agent ${state.queued.agent}`,
      );
    }
    const { agentVersion } = state.queued;
    if (agentVersion !== undefined && agentVersion !== resolved.version && !isSettled(state)) {
      return { kind: "other-version", agentVersion };
    }
    const admission = needsSlot(state)
      ? await context.admission?.admit(runId, state.queued)
      : undefined;
    if (admission?.admitted === false) {
      return { kind: "throttled", retryAtMs: admission.retryAtMs, limitedBy: admission.limitedBy };
    }
    slots = admission?.slots;
    return await inProcessSpan(context.queue, runId, state.queued.trace, async (span) => {
      const outcome = await decideAndRun(
        context,
        resolved,
        state,
        lastAttemptTrace(log),
        held.signal,
        delivery.first ?? false,
      );
      span.setAttribute("errand.process.outcome", outcome.kind);
      return outcome;
    });
  } finally {
    held.release();
    await slots?.release();
  }
}

/**
 * What the log decides, or else an attempt: the job's work once its run is
 * known. A refused start (the log moved on after it was read: an answer, a
 * cancel, or a step of a stale worker that lost the job's lock) is decided
 * again from the log, read again, and the attempt announced again, up to
 * {@link MAX_START_TRIES} starts. An append refused after the start means
 * another attempt owns the run.
 */
async function decideAndRun(
  context: RunProcessorContext,
  resolved: ResolvedAgent,
  first: RunState,
  previous: TraceContext | undefined,
  signal: AbortSignal,
  firstDelivery: boolean,
): Promise<ProcessOutcome> {
  const logger = runLogger(context.logger, {
    runId: first.runId,
    agent: resolved.agent.name,
    attempt: nextAttempt(first),
  });
  let state = first;
  let previousTrace = previous;
  for (let tries = 1; ; tries++) {
    const decided =
      (await decideFromLog(context, state, logger)) ?? (await stillParked(context, state));
    if (decided) return decided;
    const optimistic = firstDelivery && tries === 1 && state.attempts === 0 && !wasParked(state);
    const end = await tryAttempt(
      context,
      resolved,
      state,
      previousTrace,
      signal,
      logger,
      optimistic,
    );
    switch (end.kind) {
      case "ran":
        return end.outcome;
      case "parked":
        return await parkedOutcome(context, state.runId, end.request);
      case "append-refused":
        if (optimistic) {
          // The optimistic start refused, yet no attempt in the log (a cancel
          // asked, say): decide again from it and start the usual way. With an
          // attempt there, another worker owns the run (this job was taken back).
          const again = await readState(context.store, state.runId);
          if (again.attempts === 0 && !isSettled(again)) {
            logger.info(
              { seq: again.seq },
              "the optimistic start was refused: starting from the log",
            );
            state = again;
            continue;
          }
        }
        break;
      case "start-refused":
        if (tries < MAX_START_TRIES) {
          const log = await context.store.readLog(state.runId);
          state = foldRun(log, state.runId);
          previousTrace = lastAttemptTrace(log);
          logger.info(
            { seq: state.seq, tries },
            "run-started refused: deciding again from the log",
          );
          continue;
        }
        break;
    }
    logger.warn({ error: end.refusal.message }, "append refused: reading the log again");
    return await afterRefusedAppend(context, state.runId, logger);
  }
}
