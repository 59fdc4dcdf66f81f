/**
 * The sink a run attempt's steps append through: the one place the wrappers
 * around an append are put together. From what `runSteps` calls to what
 * reaches Redis:
 *
 * 1. tracing (`tracing/agent-span.ts`), when the attempt's `invoke_agent`
 *    span records: each logged event becomes an event of the span;
 * 2. metrics (`metrics/run-metrics.ts`): tokens, tool calls and step
 *    durations are counted;
 * 3. budget debit (`budgets/worker-budgets.ts`): each logged response is
 *    debited on the budgets of the run's tree (the one in the append that
 *    settles the run just before that append);
 * 4. deferred start (`optimistic-start.ts`), on an optimistic first attempt
 *    only: the first append carries the attempt's `run-started`;
 * 5. the Redis sink (`redis-sink.ts`): one fenced call of the append script
 *    a step;
 * 6. the retrying store (`retrying-store.ts`): an append cut short by a
 *    transient Redis error is tried again until it goes through.
 *
 * Why in this order: each wrapper acts once the one below it returned, that
 * is once the append is in the log. The retrying store is the innermost, so
 * that no wrapper above sees a failure a retry cured, nor counts an append
 * twice; it is the worker's store itself (`createWorker`), since every write
 * of a run waits Redis out, its start, cancel and blobs as well as its steps.
 * The deferred start sits right on the Redis sink because it alone changes
 * what is written (the `run-started` first, fenced one seq earlier): the
 * wrappers above it see the runtime's own appends, and the events written
 * come back to them with the `run-started` among them. The debit comes
 * next, so a response is debited only once logged and before the runtime
 * asks the budget gate for its next model request. Metrics and tracing only
 * observe, so they come last: an append refused, or whose debit failed, is
 * never counted or recorded as a step.
 */
import type { NewEvent, RunState } from "@errand/core";
import type { EventStore } from "@errand/store";
import type { Span } from "@opentelemetry/api";
import {
  type BudgetedSteps,
  budgetedSteps,
  type WorkerBudgets,
} from "../budgets/worker-budgets.js";
import type { RunMetrics } from "../metrics/run-metrics.js";
import { attemptEventsSink } from "../tracing/agent-span.js";
import { deferStart } from "./optimistic-start.js";
import { redisEventSink } from "./redis-sink.js";

/** What the sink of every attempt of a worker is built from. */
export interface AttemptSinkContext {
  /** The worker's store: its retrying store (`retrying-store.ts`), the sink's innermost part. */
  store: EventStore;
  /** Prices responses and keeps runs within their budgets (docs/architecture/budgets.md#budgets). */
  budgets?: WorkerBudgets;
  /** What is measured of the runs: their steps, and the runs this worker settles. */
  runMetrics?: RunMetrics;
  /** Put message contents on the runs' spans, redacted (see `RunStepsOptions.traceContent`). */
  traceContent?: boolean;
}

/** The attempt's own parts of its sink. */
export interface AttemptSinkParts {
  /** The run's state once the attempt started: announced, or not yet when its start is deferred. */
  state: RunState;
  /** The names of the run's agent and model, which its metrics are labelled with. */
  agent: string;
  model: string;
  /** The name its responses are priced by: the model's provider id (`capabilities.modelId`), else its name. */
  pricedAs: string;
  /** The attempt's `invoke_agent` span. */
  span: Span;
  /**
   * An optimistic start: the attempt's `run-started`, to go in its first
   * append, and what to do once that append is acknowledged.
   */
  deferredStart?: { started: NewEvent; onLogged: () => void };
}

/** What the attempt's steps get: the sink, the state they start from and their budget parts. */
export interface AttemptSink extends BudgetedSteps {
  /** The run's state the steps start from (with a deferred `run-started` folded in). */
  state: RunState;
}

/**
 * Builds an attempt's sink in the order above. With budgets, first debits
 * the responses its log already holds (a no-op for those debited before).
 */
export async function buildAttemptSink(
  context: AttemptSinkContext,
  { state, agent, model, pricedAs, span, deferredStart }: AttemptSinkParts,
): Promise<AttemptSink> {
  const toRedis = redisEventSink(context.store);
  const begun =
    deferredStart === undefined
      ? { state, sink: toRedis }
      : deferStart(state, deferredStart.started, toRedis, deferredStart.onLogged);
  const { sink: debited, ...budgetParts } = context.budgets
    ? await budgetedSteps(context.budgets, begun.state, pricedAs, begun.sink)
    : { sink: begun.sink };
  const metered = context.runMetrics?.meter(debited, state, agent, model) ?? debited;
  // A span that records nothing (no SDK installed) never will: no wrapper to ask it at each append.
  const traced = span.isRecording()
    ? attemptEventsSink(metered, span, context.traceContent ?? false)
    : metered;
  // Spread last: on Node 20 a spread followed by new keys costs microseconds.
  return { state: begun.state, sink: traced, ...budgetParts };
}
