/**
 * A fluent builder of run logs for tests: each call appends one event with the
 * next `seq` and a deterministic `at` (one second after the previous event), so
 * a test reads as the story of the run. Test-only: not exported from the package.
 *
 * ```ts
 * const log = runLog().queued().started().modelResponded(1, { text: "hi" }).finished("hi").build();
 * ```
 */
import {
  EVENT_VERSION,
  type EventDataOf,
  type EventType,
  type OutputItem,
  type RunEvent,
  type ToolCall,
  type Usage,
} from "../events.js";

/** The run id a builder uses unless told otherwise. */
const TEST_RUN_ID = "01JTESTRUN0000000000000001";

/** The instant of `seq` 0; event `n` happens `n` seconds later. */
const TEST_LOG_START = "2026-01-01T00:00:00.000Z";

/** A small strict JSON Schema for runs that carry one. */
const PERSON_SCHEMA = {
  type: "object",
  properties: { name: { type: "string" }, age: { type: "integer" } },
  required: ["name", "age"],
  additionalProperties: false,
} as const satisfies Record<string, unknown>;

/** What a step of the model said: text, calls, usage and finish reason all default. */
export interface ResponseSpec {
  text?: string;
  calls?: ToolCall[];
  usage?: Usage;
  finish?: string;
  items?: OutputItem[];
  responseId?: string;
}

/** How a tool call turned out, for {@link RunLogBuilder.toolResult}. */
export interface ToolResultSpec {
  ok?: boolean;
  result?: unknown;
  error?: string;
  truncated?: boolean;
}

/** Builds one run's log event by event. */
export class RunLogBuilder {
  private readonly events: RunEvent[] = [];

  constructor(
    readonly runId: string = TEST_RUN_ID,
    private readonly startMs: number = Date.parse(TEST_LOG_START),
  ) {}

  /** The `at` the event with this `seq` gets (or got). */
  timeOf(seq: number): string {
    return new Date(this.startMs + seq * 1000).toISOString();
  }

  /** The `seq` the next event will get. */
  get nextSeq(): number {
    return this.events.length + 1;
  }

  /** Appends one event of any type. */
  add<T extends EventType>(type: T, data: EventDataOf<T>): this {
    const seq = this.nextSeq;
    const event = { v: EVENT_VERSION, runId: this.runId, seq, type, at: this.timeOf(seq), data };
    this.events.push(event as RunEvent);
    return this;
  }

  /** `run-queued` for a top-level run of agent `writer`, without a schema unless given. */
  queued(overrides: Partial<EventDataOf<"run-queued">> = {}): this {
    return this.add("run-queued", {
      agent: "writer",
      input: { topic: "tides" },
      rootRunId: this.runId,
      depth: 0,
      limits: { maxSteps: 8 },
      metadata: {},
      ...overrides,
    });
  }

  /** `run-queued` carrying `schema` (by default {@link PERSON_SCHEMA}). */
  queuedWithSchema(
    schema: Record<string, unknown> = PERSON_SCHEMA,
    overrides: Partial<EventDataOf<"run-queued">> = {},
  ): this {
    return this.queued({ outputSchema: schema, ...overrides });
  }

  /** `run-started` of attempt `attempt` on worker `worker-<attempt>`. */
  started(attempt = 1, workerId = `worker-${attempt}`): this {
    return this.add("run-started", { attempt, workerId });
  }

  /** `model-responded` for `step`; 10 input and 5 output tokens unless told otherwise. */
  modelResponded(step: number, spec: ResponseSpec = {}): this {
    const calls = spec.calls ?? [];
    return this.add("model-responded", {
      step,
      ...(spec.text === undefined ? {} : { text: spec.text }),
      calls,
      usage: spec.usage ?? { inputTokens: 10, outputTokens: 5 },
      finish: spec.finish ?? (calls.length > 0 ? "tool_calls" : "stop"),
      ...(spec.items === undefined ? {} : { items: spec.items }),
      ...(spec.responseId === undefined ? {} : { responseId: spec.responseId }),
    });
  }

  /** `tool-called` for one of the step's calls. */
  toolCalled(step: number, call: ToolCall): this {
    return this.add("tool-called", { step, ...call });
  }

  /** `tool-result` for a call; ok with `result` unless told otherwise. */
  toolResult(step: number, callId: string, spec: ToolResultSpec = {}): this {
    const { ok = true, result, error, truncated = false } = spec;
    const bytes = result === undefined ? 0 : JSON.stringify(result).length;
    return this.add("tool-result", {
      step,
      callId,
      ok,
      ...(result === undefined ? {} : { result }),
      ...(error === undefined ? {} : { error }),
      bytes,
      truncated,
    });
  }

  /** `tool-called` then an ok `tool-result` carrying `result`. */
  toolRan(step: number, call: ToolCall, result: unknown): this {
    return this.toolCalled(step, call).toolResult(step, call.callId, { result });
  }

  /** `output-recorded` for a structured-output call. */
  outputRecorded(step: number, callId: string, output: unknown): this {
    return this.add("output-recorded", { step, callId, output });
  }

  /** `run-parked`: the open call `callId` of `step` waits for `waitFor`. */
  parked(step: number, callId: string, waitFor: string[], reason = "waiting"): this {
    return this.add("run-parked", { step, callId, waitFor, reason });
  }

  /** `refused`, as written for a call or before the run. */
  refused(data: EventDataOf<"refused">): this {
    return this.add("refused", data);
  }

  /** `cancel-requested`. */
  cancelRequested(data: EventDataOf<"cancel-requested"> = {}): this {
    return this.add("cancel-requested", data);
  }

  /** `cancelled`. */
  cancelled(data: EventDataOf<"cancelled"> = {}): this {
    return this.add("cancelled", data);
  }

  /** `failed` with its own code. */
  failed(code: string, message = `the run failed: ${code}`, retryable = false): this {
    return this.add("failed", { code, message, retryable });
  }

  /** `finished`, with its closing text when given. */
  finished(text?: string): this {
    return this.add("finished", text === undefined ? {} : { text });
  }

  /** The log so far (a copy: the builder can keep going). */
  build(): RunEvent[] {
    return [...this.events];
  }
}

/** Starts a log for `runId` (default {@link TEST_RUN_ID}). */
export function runLog(runId?: string): RunLogBuilder {
  return new RunLogBuilder(runId);
}

/** A tool call of the model, with arguments `args`. */
export function call(callId: string, name: string, args: unknown = {}): ToolCall {
  return { callId, name, args };
}
