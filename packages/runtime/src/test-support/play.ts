/**
 * `play`: runs an agent from a freshly queued run to the end through
 * `runSteps`, and hands back everything a test asserts on. Test-only.
 */

import type { NewEvent } from "@errand/core";
import { type RunEvent, type RunResult, type RunState, settleRun } from "@errand/core";
import type { BlobStore } from "../blobs.js";
import type { BudgetGate, PriceResponse } from "../budget-gate.js";
import type { LiveChannel } from "../live-model.js";
import { createMemorySink, type MemorySink } from "../memory-sink.js";
import type { Agent, Model, ModelRequest } from "../model.js";
import type { RetryPolicy } from "../model-retries.js";
import { runSteps } from "../run-steps.js";
import {
  FAST_RETRIES,
  recordingModel,
  recordingSink,
  type StartRunOptions,
  startRun,
} from "./runs.js";

/** What a played run can be given besides the run itself. */
export interface PlayOptions extends StartRunOptions {
  /** Default the agent's own model. */
  model?: Model;
  signal?: AbortSignal;
  blobs?: BlobStore;
  now?: () => Date;
  retry?: Partial<RetryPolicy>;
  /** Reuse a sink (to run several runs in one). */
  sink?: MemorySink;
  live?: LiveChannel;
  budget?: BudgetGate;
  priceResponse?: PriceResponse;
}

/** Everything a test looks at after a run. */
export interface PlayedRun {
  runId: string;
  state: RunState;
  /** The events `runSteps` wrote (after `run-queued` and `run-started`). */
  events: RunEvent[];
  /** The events of each append `runSteps` made. */
  appends: NewEvent[][];
  /** Every model request, in order. */
  requests: ModelRequest[];
  result: RunResult | undefined;
  sink: MemorySink;
}

/** Queues and starts a run of `agent`, then runs it to the end with `runSteps`. */
export async function play(agent: Agent, options: PlayOptions = {}): Promise<PlayedRun> {
  const sink = options.sink ?? createMemorySink();
  const start = await startRun(sink, agent, options);
  const recording = recordingSink(sink);
  const model = recordingModel(options.model ?? (agent.model as Model));
  const state = await runSteps({
    agent,
    state: start,
    model,
    sink: recording,
    signal: options.signal ?? new AbortController().signal,
    retry: { ...FAST_RETRIES, ...options.retry },
    ...(options.blobs === undefined ? {} : { blobs: options.blobs }),
    ...(options.now === undefined ? {} : { now: options.now }),
    ...(options.live === undefined ? {} : { live: options.live }),
    ...(options.budget === undefined ? {} : { budget: options.budget }),
    ...(options.priceResponse === undefined ? {} : { priceResponse: options.priceResponse }),
  });
  return {
    runId: start.runId,
    state,
    events: sink.events(start.runId).slice(start.seq),
    appends: recording.appends,
    requests: model.requests,
    result: settleRun(state),
    sink,
  };
}
