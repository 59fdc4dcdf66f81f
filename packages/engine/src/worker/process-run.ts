/**
 * The job processor of a run (docs/architecture/worker.md): read the log (or, for a job never
 * started before, take the `run-queued` the job carried) and fold it; a settled
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
 * Traced (docs/architecture/traces.md#traces): the job is a `process {queue}`
 * span under the run's stored `send` span, and each attempt an
 * `invoke_agent {agent}` span stored in its `run-started`.
 *
 * A job that comes back for its re-check while runs it waits for are still
 * pending parks again from the log's first and last events alone
 * (`parked-recheck.ts`), without reading the whole log.
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
  ErrandError,
  foldRun,
  isSettled,
  type RunEventOf,
  type RunState,
  type TraceContext,
} from "@errand/core";
import {
  applyEventInPlace,
  isWaitpointOverdue,
  parkedWaitpoint,
  runNotFound,
} from "@errand/core/ops";
import type { Logger, ParkRequest } from "@errand/runtime";
import { trimToTranscriptInPlace } from "@errand/runtime/ops";
import type { EventStore } from "@errand/store";
import { settleCancelled } from "../client/settle-cancelled.js";
import type { HeldSlots } from "../flow-control/run-admission.js";
import { runLogger } from "../logger.js";
import { foldLogInPages } from "../reads/log-pages.js";
import { lastAttemptTrace } from "../tracing/agent-span.js";
import { inProcessSpan } from "../tracing/messaging-spans.js";
import type { ResolvedAgent } from "./agent-models.js";
import { parkedAgainFromTail } from "./parked-recheck.js";
import { type ProcessOutcome, settledOutcome } from "./process-outcome.js";
import { nextAttempt, tryAttempt, wasParked } from "./run-attempt.js";
import type { RunProcessorContext } from "./run-processor-context.js";

/** Whether the run needs a slot: it is open and no cancel was asked for. */
function needsSlot(state: RunState): boolean {
  return !isSettled(state) && !state.cancelRequested;
}

/** How many times a job announces its attempt (`run-started`) before a refused one makes it give up. */
export const MAX_START_TRIES = 5;

async function readState(store: EventStore, runId: string): Promise<RunState> {
  return foldRun(await store.readLog(runId), runId);
}

/**
 * The run's folded state and the trace of its last attempt, read from its
 * log a page at a time (`log-pages.ts`), each page's steps trimmed to what
 * the run's transcript reads as it is folded (`trimToTranscriptInPlace`, as the
 * run loop keeps them): a fan-out parent resumed after its children costs a
 * page of its log and its transcript, not every spawn result it logged. The
 * log itself is left behind: an attempt that kept it (a local of a frame
 * that lasts the attempt) would hold every event it read for the attempt's
 * whole life.
 */
async function readStateAndTrace(
  store: EventStore,
  runId: string,
): Promise<{ state: RunState; previousTrace: TraceContext | undefined }> {
  let previousTrace: TraceContext | undefined;
  const state = await foldLogInPages(store, runId, (folded, page) => {
    previousTrace = lastAttemptTrace(page) ?? previousTrace;
    return trimToTranscriptInPlace(page.reduce(applyEventInPlace, folded));
  });
  return { state, previousTrace };
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
  if (state.parked?.waitForChildren !== undefined) {
    const pending = await context.newestPendingChildrenOf(state.runId);
    return pending.length > 0 ? { kind: "parked", waitFor: [], waitForChildren: true } : undefined;
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
  if (request.waitForChildren !== undefined) {
    return { kind: "parked", waitFor: [], waitForChildren: true };
  }
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

/** How the job reached this worker. */
export interface JobDelivery {
  /**
   * Its first delivery: never retried, never taken back from a stalled
   * worker. Only then may an attempt start optimistically: a job taken back
   * announces its attempt alone first, so that the fence stops the attempt
   * it replaces. Default false.
   */
  first?: boolean;
  /**
   * The job was delayed before (parked, throttled, or backed off after a
   * failure): only such a job may be a parked run's re-check, which parks
   * again from the log's ends (`parked-recheck.ts`). Default false.
   */
  delayedBefore?: boolean;
  /**
   * The run's `run-queued` as its job carried it, given only when the job
   * was never started before (not retried, not taken back, not back from a
   * park or a delay): the run is then decided from it alone,
   * without reading the log, unless a cancel of the run was heard before
   * it was held. The log may have moved on since (a cancel whose
   * announcement this worker missed, a run taken back from an orphaned
   * queue): the attempt's first append, fenced on seq 1, is then refused and
   * the log, read then, decides, as after any refused append.
   */
  queued?: RunEventOf<"run-queued">;
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
  if (delivery.delayedBefore) {
    const parked = await parkedAgainFromTail(context, runId, agentName, resolved.version);
    if (parked) return parked;
  }
  const held = context.cancels.hold(runId);
  let slots: HeldSlots | undefined;
  try {
    const { state, previousTrace } =
      delivery.queued === undefined || held.cancelHeard
        ? await readStateAndTrace(context.store, runId)
        : { state: foldRun([delivery.queued], runId), previousTrace: undefined };
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
        previousTrace,
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
          ({ state, previousTrace } = await readStateAndTrace(context.store, state.runId));
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
