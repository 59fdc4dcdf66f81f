/**
 * One attempt of a run (docs/architecture/worker.md): its `run-started` is
 * announced, fenced (after any `waitpoint-timed-out` now due), or deferred to
 * its first step's append on an optimistic start; then the run steps until it
 * settles, through the sink `attempt-sink.ts` builds, inside the attempt's
 * `invoke_agent` span. How the attempt ended, {@link AttemptEnd}, is all
 * `processRun` decides the job's outcome by.
 */
import {
  applyEvent,
  ErrandError,
  isErrandError,
  type NewEvent,
  type RunState,
  type TraceContext,
} from "@errand/core";
import { isWaitpointOverdue, markChecked, parkedWaitpoint } from "@errand/core/ops";
import { isParkRequest, type Logger, type ParkRequest, runSteps } from "@errand/runtime";
import { type EventStore, isSeqConflict } from "@errand/store";
import { fleetRunParts } from "../evaluations/fleet-run-parts.js";
import { inAttemptSpan, recordAttemptEnd } from "../tracing/agent-span.js";
import { traceField } from "../tracing/trace-context.js";
import type { ResolvedAgent } from "./agent-models.js";
import { buildAttemptSink } from "./attempt-sink.js";
import { type ProcessOutcome, settledOutcome } from "./process-outcome.js";
import { redisBlobStore } from "./redis-blobs.js";
import type { RunProcessorContext } from "./run-processor-context.js";

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

/**
 * Whether the run was parked: its last step holds a call that was logged as
 * called without an outcome (only a parking tool leaves one in an open run).
 */
export function wasParked(state: RunState): boolean {
  const last = state.steps.reduce<RunState["steps"][number] | undefined>(
    (latest, step) => (latest === undefined || step.step > latest.step ? step : latest),
    undefined,
  );
  return last?.calls.some((call) => call.called && call.outcome === undefined) ?? false;
}

/** The attempt the next `run-started` announces: the same after parking, else the next one. */
export function nextAttempt(state: RunState): number {
  return wasParked(state) ? Math.max(state.attempts, 1) : state.attempts + 1;
}

/** The `waitpoint-timed-out` of the waitpoint the run is parked on, once past its timeout. */
function timedOutWaitpoints(state: RunState, now: Date): NewEvent[] {
  const waitpoint = parkedWaitpoint(state);
  if (waitpoint === undefined || !isWaitpointOverdue(waitpoint, now)) return [];
  return [{ type: "waitpoint-timed-out", at: now.toISOString(), data: { token: waitpoint.token } }];
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
  { agent, model, version }: ResolvedAgent,
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
      data: { attempt, workerId: context.workerId, ...traceField(span), agentVersion: version },
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
      pricedAs: model.capabilities?.modelId ?? model.name,
      span,
      ...(optimistic ? { deferredStart: { started, onLogged: logStarted } } : {}),
    });
    const traceContent = context.traceContent ?? false;
    // A case of an evaluation runs with its tools and spawns answered from its recorded run.
    const parts = await fleetRunParts(context, begun, agent, context.services);
    const settled = await runSteps({
      agent: parts.agent,
      model,
      state: begun,
      sink,
      blobs: redisBlobStore(store),
      signal,
      logger: context.logger,
      now: context.now,
      traceContent,
      ...(parts.services === undefined ? {} : { services: parts.services }),
      ...(context.retry === undefined ? {} : { retry: context.retry }),
      ...(context.live === undefined ? {} : { live: context.live }),
      ...(context.cutLargeCallArgs === undefined
        ? {}
        : { cutLargeCallArgs: context.cutLargeCallArgs }),
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
 * `processRun` (`process-run.ts`) decides what follows by it alone.
 */
type AttemptEnd =
  | { kind: "ran"; outcome: ProcessOutcome }
  | { kind: "parked"; request: ParkRequest }
  | { kind: "start-refused"; refusal: ErrandError }
  | { kind: "append-refused"; refusal: ErrandError };

/** Runs the attempt and tells how it ended; throws anything else (so that BullMQ retries the job). */
export async function tryAttempt(...attempt: Parameters<typeof runAttempt>): Promise<AttemptEnd> {
  try {
    return { kind: "ran", outcome: await runAttempt(...attempt) };
  } catch (error) {
    if (isParkRequest(error)) return { kind: "parked", request: error };
    if (error instanceof StartRefused) return { kind: "start-refused", refusal: error.refusal };
    if (isRefusedAppend(error)) return { kind: "append-refused", refusal: error };
    throw error;
  }
}
