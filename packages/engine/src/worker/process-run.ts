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
 */
import {
  applyEvent,
  ErrandError,
  foldRun,
  isErrandError,
  isSettled,
  type RunError,
  type RunState,
  type RunStatus,
  runNotFound,
  type TraceContext,
} from "@errand/core";
import type { Logger } from "@errand/runtime";
import { isParkRequest, type RetryPolicy, runSteps } from "@errand/runtime";
import { type EventStore, isSeqConflict } from "@errand/store";
import { runLogger } from "../logger.js";
import type { RunMetrics } from "../metrics/run-metrics.js";
import type { EngineResources } from "../resources.js";
import { settleCancelled } from "../settle-cancelled.js";
import {
  attemptEventsSink,
  inAttemptSpan,
  lastAttemptTrace,
  recordAttemptEnd,
} from "../tracing/agent-span.js";
import { inProcessSpan } from "../tracing/messaging-spans.js";
import { traceField } from "../tracing/trace-context.js";
import type { ResolvedAgent } from "./agent-models.js";
import type { CancelListener } from "./cancel-listener.js";
import { redisBlobStore } from "./redis-blobs.js";
import { redisEventSink } from "./redis-sink.js";

/** What processing a run needs: the worker's resources, shared by every job, and its own parts. */
export interface RunProcessorContext extends EngineResources {
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
  /** Put message contents on the runs' spans, redacted (see `RunStepsOptions.traceContent`). */
  traceContent?: boolean;
  /** The runs of `runIds` that have no stored result yet: what a parked run still waits for. */
  pendingOf(runIds: readonly string[]): Promise<string[]>;
  /** What is measured of the runs: their steps, and the runs this worker settles. */
  runMetrics?: RunMetrics;
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
  /** A tool parked the run until `waitFor` settle: the step so far is logged, the run stays open. */
  | { kind: "parked"; waitFor: readonly string[] };

function isRefusedAppend(error: unknown): boolean {
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

/**
 * Announces a new attempt and steps the run until it settles, inside the
 * attempt's `invoke_agent` span (stored in its `run-started`, linked to
 * `previous`, the span of the attempt before it).
 */
function runAttempt(
  context: RunProcessorContext,
  { agent, model }: ResolvedAgent,
  state: RunState,
  previous: TraceContext | undefined,
  signal: AbortSignal,
  logger: Logger,
): Promise<ProcessOutcome> {
  const { store } = context;
  const attempt = nextAttempt(state);
  const spanOptions = { agent: agent.name, model, runId: state.runId, attempt, previous };
  return inAttemptSpan(spanOptions, async (span) => {
    const started = await store.appendEvents(state.runId, state.seq, [
      {
        type: "run-started",
        at: context.now().toISOString(),
        data: { attempt, workerId: context.workerId, ...traceField(span) },
      },
    ]);
    logger.info({ seq: state.seq + 1, resumeFromStep: state.steps.length }, "run started");
    const traceContent = context.traceContent ?? false;
    const sink = redisEventSink(store);
    const settled = await runSteps({
      agent,
      model,
      state: started.reduce(applyEvent, state),
      sink: attemptEventsSink(
        context.runMetrics?.meter(sink, state, agent.name, model.name) ?? sink,
        span,
        traceContent,
      ),
      blobs: redisBlobStore(store),
      signal,
      logger: context.logger,
      now: context.now,
      traceContent,
      ...(context.services === undefined ? {} : { services: context.services }),
      ...(context.retry === undefined ? {} : { retry: context.retry }),
    });
    recordAttemptEnd(span, settled);
    logger.info({ status: settled.status, seq: settled.seq }, "run ended");
    context.runMetrics?.settled(settled);
    return settledOutcome("settled", settled);
  });
}

/**
 * Processes the job of run `runId` for agent `agentName`. A run a tool
 * parks comes back as `parked`: the caller takes its job off the worker.
 * Throws (so that
 * BullMQ retries the job) on unexpected errors; `not_found` for a run without
 * a log; `invalid_spec` when this worker does not run the agent or the job
 * names another agent than the run's.
 */
export async function processRun(
  context: RunProcessorContext,
  runId: string,
  agentName: string,
): Promise<ProcessOutcome> {
  const resolved = context.agents.get(agentName);
  if (!resolved) {
    throw new ErrandError(
      "invalid_spec",
      `this worker does not run agent ${agentName} (job ${runId}); run every agent of a queue on each of its workers`,
    );
  }
  const held = context.cancels.hold(runId);
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
    return await inProcessSpan(context.queue, runId, state.queued.trace, async (span) => {
      const outcome = await decideAndRun(
        context,
        resolved,
        state,
        lastAttemptTrace(log),
        held.signal,
      );
      span.setAttribute("errand.process.outcome", outcome.kind);
      return outcome;
    });
  } finally {
    held.release();
  }
}

/** What the log decides, or else an attempt: the job's work once its run is known. */
async function decideAndRun(
  context: RunProcessorContext,
  resolved: ResolvedAgent,
  state: RunState,
  previous: TraceContext | undefined,
  signal: AbortSignal,
): Promise<ProcessOutcome> {
  const { runId } = state;
  const logger = runLogger(context.logger, {
    runId,
    agent: resolved.agent.name,
    attempt: nextAttempt(state),
  });
  const decided = await decideFromLog(context, state, logger);
  if (decided) return decided;
  const stillWaiting = state.parked && (await context.pendingOf(state.parked.waitFor));
  if (stillWaiting && stillWaiting.length > 0) return { kind: "parked", waitFor: stillWaiting };
  try {
    return await runAttempt(context, resolved, state, previous, signal, logger);
  } catch (error) {
    if (isParkRequest(error)) return { kind: "parked", waitFor: error.waitFor };
    if (!isRefusedAppend(error)) throw error;
    logger.warn({ error: (error as Error).message }, "append refused: reading the log again");
    return await afterRefusedAppend(context, runId, logger);
  }
}
