/**
 * `runSteps`: the agent loop. It continues a run from its folded state —
 * a model response or tool result already in the log is never redone — asks
 * the model for the next step, settles the step's tool calls, and writes the
 * whole step through the sink in one append, until the run settles
 * (`finished`, `failed` or `cancelled`, all written here).
 */
import {
  ErrandError,
  isSettled,
  type NewEvent,
  type RunState,
  type StepState,
  type ToolCall,
} from "@errand/core";
import { applyEventInPlace, copyForInPlaceFold, markChecked, waitpointOf } from "@errand/core/ops";
import type { BlobStore } from "./blobs.js";
import { createMemoryBlobStore } from "./blobs.js";
import type { BudgetGate, PriceResponse } from "./budget-gate.js";
import { loggedCall, wholeCall } from "./call-args.js";
import { errorMessage, isModelError, type ParkRequest } from "./errors.js";
import { type LiveChannel, liveModel } from "./live-model.js";
import { type Logger, lazyChild, noopLogger } from "./logger.js";
import type { Agent, Model, ModelRequest, ModelResponse } from "./model.js";
import { schemaRefusal, settingsRefusal } from "./model.js";
import { DEFAULT_RETRY_POLICY, type RetryPolicy, respondWithRetries } from "./model-retries.js";
import { type ModelSettings, runModelSettings } from "./model-settings.js";
import { type RunDeadline, startDeadline } from "./run-deadline.js";
import type { EventSink } from "./sink.js";
import { type CallRunner, runCalls, type StepCall } from "./step-calls.js";
import {
  compileOutputSchema,
  isStructuredOutputTool,
  structuredOutputToolSpec,
} from "./structured-output.js";
import type { Tool } from "./tool.js";
import type { ToolSpec } from "./tool-spec.js";
import { chatTracedModel } from "./tracing/chat-span.js";
import { buildTranscript, trimToTranscriptInPlace } from "./transcript.js";

/** What {@link runSteps} takes. */
export interface RunStepsOptions {
  agent: Agent;
  /**
   * The folded state of the run: its log holds `run-queued` and the current
   * attempt's `run-started`. The run's schema and limits are read from its
   * `run-queued`, never from the agent.
   */
  state: RunState;
  /** The model to run with; default the agent's own, when it is a {@link Model}. */
  model?: Model;
  /** Where the run's events go: one append per step. */
  sink: EventSink;
  /** Cancels the run: the in-flight model request or tool is aborted and `cancelled` is written. */
  signal: AbortSignal;
  /** Where large tool results are stored. Default: an in-memory store of this call. */
  blobs?: BlobStore;
  logger?: Logger;
  /** The clock of `at` timestamps and the timeout. Default the system clock. */
  now?: () => Date;
  /** How failed model requests are retried. Default {@link DEFAULT_RETRY_POLICY}. */
  retry?: Partial<RetryPolicy>;
  /** What tools may use from the host, as `ctx.services`. Default none. */
  services?: Readonly<Record<string, unknown>>;
  /**
   * Put message contents on the run's spans (prompts, answers, tool
   * arguments and results), redacted. Default false: spans carry names,
   * counts and ids only.
   */
  traceContent?: boolean;
  /** Where a streaming model's deltas are published (docs/architecture/redis-layout.md#the-live-channel-streaming). Default none. */
  live?: LiveChannel;
  /** Asked before each model request: a run whose budget is exhausted fails `budget_exceeded`. */
  budget?: BudgetGate;
  /** Prices each response (its `model-responded.costUsd`). Default: responses carry no cost. */
  priceResponse?: PriceResponse;
  /**
   * Log a call's arguments over the inline limits as a blob and a preview
   * (`call-args.ts`). Default true; false writes them whole, as releases
   * before it did, for the first step of its rolling upgrade
   * (docs/architecture/tool-results.md#call-arguments-kept-as-blobs).
   */
  cutLargeCallArgs?: boolean;
}

function resolveModel(agent: Agent, model: Model | undefined): Model {
  if (model) return model;
  if (typeof agent.model !== "string") return agent.model;
  throw new ErrandError(
    "invalid_spec",
    `agent ${agent.name} names its model (${agent.model}): pass the Model to run it with`,
  );
}

function lastStep(state: RunState): StepState | undefined {
  return state.steps.reduce<StepState | undefined>(
    (last, step) => (last === undefined || step.step > last.step ? step : last),
    undefined,
  );
}

/** True when `calls` name a tool other than the structured-output tool (which runs in no time). */
function callsOtherTools(calls: readonly ToolCall[]): boolean {
  return calls.some((call) => !isStructuredOutputTool(call.name));
}

/** One run being stepped: its state, its sink and what it needs to ask the model and run tools. */
class RunLoop {
  /** The loop's own copy of the run's state: each append is folded into it in place. */
  private state: RunState;
  private readonly queued: NonNullable<RunState["queued"]>;
  private readonly model: Model;
  /** {@link model}, publishing on the live channel, each request of which is a `chat` span. */
  private readonly tracedModel: Model;
  private readonly deadline: RunDeadline;
  /** Fires on cancel or timeout: what the model and the tools are given. */
  private readonly signal: AbortSignal;
  private readonly runner: CallRunner;
  private readonly retry: RetryPolicy;
  private readonly logger: Logger;
  /** Set when a tool asked to park the run: thrown once the step is appended. */
  private parkRequest: ParkRequest | undefined;
  /** The settings the model is asked with: the agent's, under the run's own (set by `prepare`). */
  private settings: ModelSettings;

  constructor(private readonly options: RunStepsOptions) {
    const { agent, state } = options;
    if (state.queued === undefined) {
      throw new ErrandError("invalid_event", `run ${state.runId} has no run-queued event`);
    }
    this.state = trimToTranscriptInPlace(copyForInPlaceFold(state));
    this.queued = state.queued;
    this.model = resolveModel(agent, options.model);
    this.settings = agent.modelSettings;
    const traceContent = options.traceContent ?? false;
    const live = options.live;
    const streamed = live ? liveModel(this.model, live, state.attempts) : this.model;
    this.tracedModel = chatTracedModel(streamed, traceContent);
    const now = options.now ?? (() => new Date());
    this.deadline = startDeadline(state, this.queued.limits.timeoutMs, now, options.signal);
    this.signal = this.deadline.signal;
    this.logger = lazyChild(options.logger ?? noopLogger, {
      runId: state.runId,
      agent: agent.name,
      attempt: state.attempts,
    });
    this.retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.runner = {
      runId: state.runId,
      tools: new Map(agent.tools.map((tool): [string, Tool] => [tool.name, tool])),
      output: undefined,
      blobs: options.blobs ?? createMemoryBlobStore(),
      logger: this.logger,
      timestamp: () => now().toISOString(),
      services: options.services ?? {},
      traceContent,
      waitpointOf: (token) => waitpointOf(this.state, token),
    };
  }

  async run(): Promise<RunState> {
    try {
      const refusal = this.prepare();
      if (refusal) await this.append([refusal]);
      while (!isSettled(this.state)) {
        await this.append(await this.nextEvents());
        if (this.parkRequest) throw this.parkRequest;
      }
      this.logger.info(
        { status: this.state.status, steps: this.state.steps.length },
        "run settled",
      );
      return this.state;
    } finally {
      this.deadline.dispose();
    }
  }

  private async append(events: NewEvent[]): Promise<void> {
    const written = await this.options.sink.append(this.state.runId, this.state.seq, events);
    // What no later model request reads is dropped as it goes: a parent's memory is its transcript's.
    this.state = trimToTranscriptInPlace(written.reduce(applyEventInPlace, this.state));
  }

  private event<T extends NewEvent["type"]>(
    type: T,
    data: Extract<NewEvent, { type: T }>["data"],
  ): NewEvent {
    return { type, at: this.runner.timestamp(), data } as NewEvent;
  }

  /**
   * The `finished` that ends the turn, marked checked (core's `markChecked`): its one datum, the
   * step's text, is its `model-responded`'s, validated by the append that logs that response
   * (this one, before it, or an earlier one), so the store does not parse it again.
   */
  private finished(text: string | undefined): NewEvent {
    return markChecked(this.event("finished", text === undefined ? {} : { text }));
  }

  private failed(code: string, message: string, retryable = false): NewEvent {
    return this.event("failed", { code, message, retryable });
  }

  /**
   * Compiles the run's own schema; a `failed` event when the run cannot carry
   * it, or when the model cannot honour the agent's settings under the run's.
   */
  private prepare(): NewEvent | undefined {
    if (isSettled(this.state)) return undefined;
    try {
      this.settings = runModelSettings(this.options.agent.modelSettings, this.queued.modelSettings);
    } catch (error) {
      return this.failed("invalid_spec", errorMessage(error));
    }
    const refusal = settingsRefusal(this.model, this.settings);
    if (refusal !== undefined) return this.failed("settings_not_supported", refusal);
    const schema = this.queued.outputSchema;
    if (schema === undefined) return undefined;
    const schemaRefused = schemaRefusal(this.model, schema);
    if (schemaRefused !== undefined)
      return this.failed("schema_not_supported", schemaRefused.message);
    try {
      this.runner.output = compileOutputSchema(schema);
      return undefined;
    } catch (error) {
      return this.failed("unsupported_schema", `unsupported JSON schema: ${errorMessage(error)}`);
    }
  }

  /** `cancelled` or a timeout `failed` when the run must stop now. */
  private stopEvent(): NewEvent | undefined {
    const { signal } = this.options;
    if (signal.aborted || this.state.cancelRequested) {
      const reason =
        typeof signal.reason === "string" ? signal.reason : this.state.cancelRequested?.reason;
      return this.event("cancelled", reason === undefined ? {} : { reason });
    }
    if (this.deadline.expired()) {
      const limit = this.queued.limits.timeoutMs;
      return this.failed("timeout", `the run exceeded its timeout of ${limit} ms`);
    }
    return undefined;
  }

  /** The events of the next append: whatever moves the run forward from its state. */
  private async nextEvents(): Promise<NewEvent[]> {
    const stop = this.stopEvent();
    if (stop) return [stop];
    const last = lastStep(this.state);
    const pending = last?.calls.filter((call) => call.outcome === undefined) ?? [];
    if (last && pending.length > 0) {
      this.logger.info({ step: last.step, calls: pending.length }, "resuming a step's tool calls");
      const resumed = await Promise.all(
        pending.map(async ({ callId, name, args, argsRef }): Promise<StepCall> => {
          const logged = { callId, name, args, ...(argsRef === undefined ? {} : { argsRef }) };
          return { call: await wholeCall(logged, this.runner.blobs), logged };
        }),
      );
      return this.finishStep([], last.step, resumed, last.text);
    }
    if (this.state.output !== undefined || last?.calls.length === 0) {
      return [this.finished(last?.text)];
    }
    const { maxSteps } = this.queued.limits;
    if (this.state.steps.length >= maxSteps) {
      return [this.failed("max_steps", `the run reached its limit of ${maxSteps} steps`)];
    }
    const step = (last?.step ?? 0) + 1;
    const overBudget = await this.options.budget?.beforeRequest(step);
    if (overBudget !== undefined) return [this.failed("budget_exceeded", overBudget)];
    return this.newStep(step);
  }

  private async newStep(step: number): Promise<NewEvent[]> {
    let response: ModelResponse;
    try {
      response = await respondWithRetries(
        this.tracedModel,
        this.request(step),
        this.signal,
        this.retry,
        this.logger,
      );
    } catch (error) {
      const stop = this.stopEvent();
      if (stop) return [stop];
      if (!isModelError(error)) throw error;
      this.logger.warn({ step, error: error.message }, "model request failed");
      return [this.failed("model_error", error.message, error.retryable)];
    }
    const { text, calls, usage, finish, items, responseId } = response;
    // The fields are made only for a logger that writes them: a silent worker's step makes none.
    if (this.logger.isLevelEnabled?.("debug") !== false) {
      this.logger.debug({ step, calls: calls.map((c) => c.name), usage }, "model responded");
    }
    const costUsd = this.options.priceResponse?.(usage);
    const stepCalls = await this.stepCalls(calls);
    // Optional keys spread last: on Node 20 a spread followed by new keys costs microseconds.
    const responded = this.event("model-responded", {
      step,
      calls: stepCalls.map(({ logged }) => logged),
      usage,
      finish,
      ...(text === undefined ? {} : { text }),
      ...(items === undefined ? {} : { items }),
      ...(responseId === undefined ? {} : { responseId }),
      ...(costUsd === undefined ? {} : { costUsd }),
    });
    if (!callsOtherTools(calls)) return this.finishStep([responded], step, stepCalls, text);
    // Logged before the tools run, so the log tells which tools run and since when; a run
    // resumed after this append runs the pending calls, never the model again (docs/architecture/worker.md).
    await this.append([responded]);
    return this.finishStep([], step, stepCalls, text);
  }

  /** Each call of a response with what its events log of it (`call-args.ts`). */
  private stepCalls(calls: readonly ToolCall[]): Promise<StepCall[]> {
    const { runId, blobs } = this.runner;
    const cut = this.options.cutLargeCallArgs ?? true;
    return Promise.all(
      calls.map(async (call) => ({
        call,
        logged: cut ? await loggedCall(call, runId, blobs) : call,
      })),
    );
  }

  private request(step: number): ModelRequest {
    const { agent } = this.options;
    const schema = this.queued.outputSchema;
    return {
      runId: this.state.runId,
      step,
      messages: buildTranscript(agent, this.state),
      tools: this.toolSpecs(schema),
      settings: this.settings,
      agent,
      input: this.queued.input,
      ...(typeof agent.model === "string" ? { model: agent.model } : {}),
    };
  }

  /** The specs of the agent's tools, then the structured-output tool's when the run has a schema. */
  private toolSpecs(schema: Record<string, unknown> | undefined): ToolSpec[] {
    const specs = this.options.agent.tools.map((tool) => tool.spec);
    if (schema !== undefined) specs.push(structuredOutputToolSpec(schema));
    return specs;
  }

  /** `leading` events, then the calls run, then how the step ends the turn (if it does). */
  private async finishStep(
    leading: NewEvent[],
    step: number,
    calls: readonly StepCall[],
    text: string | undefined,
  ): Promise<NewEvent[]> {
    const alreadyRecorded = this.state.output !== undefined;
    const settled = await runCalls(this.runner, step, calls, alreadyRecorded, this.signal);
    // `settled.events` is this step's own array: the step's events extend it, without copies.
    const events = leading.length === 0 ? settled.events : leading.concat(settled.events);
    if (settled.halt?.kind === "fatal") {
      const { error } = settled.halt;
      this.logger.error({ step, error: error.message }, "tool failed the run");
      events.push(this.failed(error.code, error.message, error.retryable));
      return events;
    }
    if (settled.halt?.kind === "parked") {
      this.logger.info({ step, waitFor: settled.halt.request.waitFor.length }, "run parked");
      this.parkRequest = settled.halt.request;
      return events;
    }
    if (settled.halt?.kind === "aborted") {
      events.push(this.stopEvent() ?? this.event("cancelled", {}));
    } else if (settled.recorded || calls.length === 0) {
      events.push(this.finished(text));
    }
    return events;
  }
}

/**
 * Steps a run until it settles and returns its state after everything
 * appended. Writes its terminal event itself: `finished` when a turn ends (no
 * tool calls, or a structured output recorded), `failed` for `max_steps`,
 * `timeout`, `model_error` (after retries), `tool_error` (a `FatalToolError`),
 * `budget_exceeded` (the `budget` gate refused a request, before it is made),
 * `schema_not_supported` / `settings_not_supported` (the model cannot carry
 * the run's schema or honour its settings: before any request),
 * `cancelled` when `signal` fires or the log holds a `cancel-requested`.
 * A run already settled is returned as is.
 *
 * Rejects with a {@link ParkRequest} after appending the step so far when a
 * tool parks the run (see `ParkRequest`): the run stays open and resumes from
 * its log. Rejects, without writing, when the sink does (`seq_conflict`: another writer
 * moved the log on; re-read it and decide), and with `invalid_spec` when the
 * agent names a model and no `model` is given.
 */
export async function runSteps(options: RunStepsOptions): Promise<RunState> {
  if (isSettled(options.state)) return options.state;
  return new RunLoop(options).run();
}
