/**
 * The event model: every fact about a run is one immutable event with a
 * per-run `seq` (1, 2, 3, …). One zod schema per event type is the single
 * source of truth; each TypeScript type is inferred from its schema and shares
 * its name.
 */
import { z } from "zod";
import { RunBudget } from "./budget.js";

/** The version of the event envelope written today. Old versions must keep folding. */
export const EVENT_VERSION = 1;

const tokens = z.number().int().nonnegative();

/**
 * Tokens spent by model requests. `inputTokens` counts every input token,
 * cached or not; `outputTokens` every output token, reasoning included.
 * `cachedInputTokens` (part of `inputTokens` the provider read from its
 * prompt cache), `cacheWriteTokens` (part of `inputTokens` the provider
 * wrote to its prompt cache, e.g. Anthropic's cache creation) and
 * `reasoningTokens` (part of `outputTokens` spent reasoning) are present
 * only when the provider reported them; they came after v1 (additive): older
 * logs have none.
 */
export const Usage = z.object({
  inputTokens: tokens,
  outputTokens: tokens,
  cachedInputTokens: tokens.optional(),
  cacheWriteTokens: tokens.optional(),
  reasoningTokens: tokens.optional(),
});
export type Usage = z.infer<typeof Usage>;

/** A reference to a large value stored outside the event: see docs/architecture/tool-results.md#the-result-vocabulary. */
export const ResourceRef = z.object({
  ref: z.string().startsWith("resource://"),
  contentType: z.string(),
  sizeBytes: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});
export type ResourceRef = z.infer<typeof ResourceRef>;

/**
 * A tool call the model asked for. `args` is the parsed JSON arguments (or the
 * raw string when they were not JSON). Arguments over the inline limits are
 * logged cut: `args` is then `{ truncated: true, preview }` (the redacted JSON's
 * first characters) and `argsRef` the blob holding them whole
 * (docs/architecture/tool-results.md#call-arguments-kept-as-blobs); additive,
 * absent in older logs.
 */
export const ToolCall = z.object({
  callId: z.string().min(1),
  name: z.string().min(1),
  args: z.unknown(),
  argsRef: ResourceRef.optional(),
});
export type ToolCall = z.infer<typeof ToolCall>;

/** The error shape carried by results and `failed` events. */
export const RunError = z.object({
  code: z.string().min(1),
  message: z.string(),
  retryable: z.boolean(),
});
export type RunError = z.infer<typeof RunError>;

/** Limits a run is held to; copied into `run-queued` so that every attempt obeys the same ones. */
export const RunLimits = z.object({
  maxSteps: z.number().int().positive(),
  timeoutMs: z.number().int().positive().optional(),
  /** ISO-8601 instant after which the reaper cancels the run as `deadline_exceeded`. */
  deadlineAt: z.iso.datetime().optional(),
});
export type RunLimits = z.infer<typeof RunLimits>;

/**
 * The lowest priority a run may have: BullMQ's own limit (`PRIORITY_LIMIT`,
 * 2²¹ − 1). Priorities are BullMQ's: 1 is the highest, a higher number a
 * lower priority, and a run without one goes before every run with one.
 */
export const MAX_RUN_PRIORITY = 2 ** 21 - 1;

/** A run's BullMQ priority: 1 (first) … {@link MAX_RUN_PRIORITY} (last). */
export const RunPriority = z.number().int().min(1).max(MAX_RUN_PRIORITY);

/**
 * Where a run sits in a distributed trace, in the W3C Trace Context format:
 * `traceparent` (`00-<trace id>-<span id>-<flags>`) and, when the tracer
 * carried one, `tracestate`. Written only when the writer had a recording
 * tracer (an application that installed an OpenTelemetry SDK).
 */
export const TraceContext = z.object({
  traceparent: z.string().regex(/^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/),
  tracestate: z.string().min(1).optional(),
});
export type TraceContext = z.infer<typeof TraceContext>;

/** Why something was refused. */
export const RefusalReason = z.enum([
  "invalid-arguments",
  "output-already-recorded",
  "unknown-tool",
  "limit-exceeded",
]);
export type RefusalReason = z.infer<typeof RefusalReason>;

const step = z.number().int().positive();

/** What a waitpoint's timeout does: answer the call that it timed out, or fail the run. */
export const WaitpointTimeoutAction = z.enum(["result", "fail"]);
export type WaitpointTimeoutAction = z.infer<typeof WaitpointTimeoutAction>;

const itemId = z.string().min(1).optional();

/**
 * What an AI SDK provider attached to an output part (`providerMetadata`,
 * a JSON object per provider name: Anthropic's thinking `signature` or
 * `redactedData`, Gemini's `thoughtSignature`, …), sent back as the part's
 * `providerOptions` on the next request, as it was given. Optional and
 * additive: written by `@errand/ai-sdk` only.
 */
const providerMetadata = z.record(z.string(), z.record(z.string(), z.unknown())).optional();

/**
 * One item of a model response's output, in the order the provider gave it:
 * what a provider that keeps reasoning between turns (the OpenAI Responses
 * API) must be sent back on the next request, so that a run resumed on
 * another worker sends what an uninterrupted run would. The text and the
 * calls themselves stay in `text` and `calls`; an item points at them.
 */
export const OutputItem = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("reasoning"),
    id: itemId,
    /** The reasoning summary texts (empty unless a summary was asked for). */
    summary: z.array(z.string()),
    /** The provider's encrypted reasoning: sent back when the provider does not store responses. */
    encryptedContent: z.string().min(1).optional(),
    /** The reasoning text itself, for a provider that must be sent it back (Anthropic's thinking). */
    text: z.string().optional(),
    providerMetadata,
  }),
  z.object({
    type: z.literal("message"),
    id: itemId,
    /** The provider's label of the message (`commentary`, `final_answer`), sent back as given. */
    phase: z.string().min(1).optional(),
    /** This message's own text, only when the step's `text` joins several messages. */
    text: z.string().optional(),
    providerMetadata,
  }),
  z.object({
    type: z.literal("function_call"),
    id: itemId,
    /** The `callId` of the step's call this item carries. */
    callId: z.string().min(1),
    providerMetadata,
  }),
]);
export type OutputItem = z.infer<typeof OutputItem>;

/** Data of each event type, by type. */
export const EventData = {
  "run-queued": z.object({
    agent: z.string().min(1),
    input: z.unknown(),
    /** The run's own JSON Schema, already accepted by `preflightSchema`. */
    outputSchema: z.record(z.string(), z.unknown()).optional(),
    parentRunId: z.string().optional(),
    rootRunId: z.string().min(1),
    depth: z.number().int().nonnegative(),
    limits: RunLimits,
    metadata: z.record(z.string(), z.string()),
    /**
     * The BullMQ priority its job was enqueued with, when it has one (came
     * after v1: additive, older logs have none).
     */
    priority: RunPriority.optional(),
    /**
     * The version of the agent the run was fired for (`agentVersion`): only
     * workers of that version start or resume it. Optional and additive:
     * absent in older logs, whose runs any worker of the agent takes.
     */
    agentVersion: z.string().min(1).max(128).optional(),
    /**
     * The key the run's concurrency is limited under (`concurrencyKey`, e.g. a
     * tenant): at most the key's limit of its runs run at once across the
     * fleet (docs/architecture/flow-control.md#flow-control). Optional and additive:
     * absent in older logs and for runs fired without one.
     */
    concurrencyKey: z.string().min(1).max(256).optional(),
    /**
     * The tenant the run belongs to (`tenant`, docs/operations/keys.md): an
     * access key of a tenant sees only its runs; a child has its parent's.
     * Optional and additive: absent in older logs and for runs fired
     * without one.
     */
    tenant: z.string().min(1).max(128).optional(),
    /**
     * The span that fired the run (`send {queue}`): the worker's spans of the
     * run are its children, so fire, worker, children and collect read as one
     * trace. Optional and additive: absent when the firer traced nothing.
     */
    trace: TraceContext.optional(),
    /**
     * The budgets the run counts against, with its descendants
     * (docs/architecture/budgets.md#budgets): its own, fired with it, and its
     * ancestors'. Optional and additive: absent for a run without a budget.
     */
    budget: RunBudget.optional(),
    /**
     * The model settings the run was fired with, over its agent's
     * (docs/architecture/firing.md#preflight): checked by `fire` against the
     * model's capabilities. Optional and additive: absent for a run fired
     * without any.
     */
    modelSettings: z.record(z.string(), z.unknown()).optional(),
    /**
     * The run is a case of an evaluation, fired by `evaluate` for a candidate
     * on the fleet (docs/architecture/evaluations.md#candidates-on-the-fleet):
     * its worker answers its tool calls from the log of `recordedRunId` (with
     * `tools: "recorded"`, calls the log cannot answer handled by
     * `onUnrecorded`) and its `spawn_agents` from that run's children.
     * Optional and additive: absent for every other run.
     */
    evaluation: z
      .object({
        evaluationId: z.string().min(1),
        recordedRunId: z.string().min(1),
        tools: z.enum(["recorded", "live"]),
        onUnrecorded: z.enum(["refuse", "fail", "live"]),
      })
      .optional(),
  }),
  /**
   * A worker took the run. `trace` (optional, additive) is the attempt's
   * `invoke_agent` span: the next attempt links to it, so a crash and its
   * recovery read as one story. `agentVersion` (optional, additive) is the
   * version of the agent the attempt runs.
   */
  "run-started": z.object({
    attempt: z.number().int().positive(),
    workerId: z.string().min(1),
    trace: TraceContext.optional(),
    /**
     * The version of the agent this attempt runs (`agentVersion(agent)` on
     * its worker), so a re-run can ask for the version that ran. Optional and
     * additive: absent in older logs.
     */
    agentVersion: z.string().min(1).max(128).optional(),
  }),
  /**
   * One model response. `items` (the response's output items in order) and
   * `responseId` (the provider's id of the response) are written for models
   * that need them back on the next request (the Responses API); they came
   * after v1 (additive: older logs and other models have neither, and readers
   * older than them ignore them).
   */
  "model-responded": z.object({
    step,
    text: z.string().optional(),
    calls: z.array(ToolCall),
    usage: Usage,
    finish: z.string(),
    items: z.array(OutputItem).optional(),
    responseId: z.string().min(1).optional(),
    /**
     * What the response cost in US dollars, by the worker's price table,
     * when the table knows the model. Optional and additive: absent in older
     * logs and for unpriced models.
     */
    costUsd: z.number().nonnegative().optional(),
  }),
  "tool-called": z.object({
    step,
    callId: z.string().min(1),
    name: z.string().min(1),
    /** As its call in `model-responded`: cut, with `argsRef`, when over the inline limits. */
    args: z.unknown(),
    argsRef: ResourceRef.optional(),
  }),
  "tool-result": z.object({
    step,
    callId: z.string().min(1),
    ok: z.boolean(),
    result: z.unknown().optional(),
    error: z.string().optional(),
    bytes: z.number().int().nonnegative(),
    truncated: z.boolean(),
    ref: ResourceRef.optional(),
  }),
  /**
   * A tool call made the run wait for other runs (`collect_agents` with
   * `wait`): the run's job left its worker until they settle. The call stays
   * open; a `run-started` of the same attempt resumes the run. Added with the
   * fleet release: older logs park without it.
   */
  "run-parked": z.object({
    step,
    callId: z.string().min(1),
    /** The runs it waits for: those still pending when it parked; empty with `waitForChildren`. */
    waitFor: z.array(z.string().min(1)),
    /**
     * It waits for every child it has (its children set), this many of them
     * pending when it parked: what a park over more runs than a list
     * carries logs instead of their runIds. Added with the bounded park:
     * older logs name every run in `waitFor`.
     */
    waitForChildren: z.number().int().positive().optional(),
    /** What it waits for, for people: `waiting for 4 of 12 runs to settle`. */
    reason: z.string(),
  }),
  /**
   * A tool call made the run wait for an answer from outside (a person or
   * another system): written in the same append as the call's `tool-called`,
   * just before its `run-parked`. `token` names the waitpoint wherever it is
   * answered; it encodes the runId, step and callId (see `waitpointToken`).
   */
  "waitpoint-created": z.object({
    step,
    callId: z.string().min(1),
    token: z.string().min(1),
    /** What is asked, for people. */
    question: z.string().min(1),
    /** The JSON Schema an answer must match, already accepted by `preflightSchema`. */
    answerSchema: z.record(z.string(), z.unknown()).optional(),
    /** ISO-8601 instant after which the waitpoint times out, when it has a timeout. */
    timeoutAt: z.iso.datetime().optional(),
    /** On timeout: the call answers that it timed out (`result`), or the run fails `waitpoint_timeout` (`fail`). */
    onTimeout: WaitpointTimeoutAction,
  }),
  /** A waitpoint was answered (`errand.waitpoints.complete`, the CLI, the dashboard). */
  "waitpoint-completed": z.object({
    token: z.string().min(1),
    /** The answer, valid against the waitpoint's `answerSchema` when it has one. */
    answer: z.unknown(),
    /** Who answered, as the answering side named itself. */
    answeredBy: z.string().min(1).optional(),
  }),
  /** A waitpoint passed its `timeoutAt` without an answer: written by the worker that resumes the run. */
  "waitpoint-timed-out": z.object({
    token: z.string().min(1),
  }),
  "output-recorded": z.object({
    step,
    callId: z.string().min(1),
    output: z.unknown(),
  }),
  refused: z.object({
    step: step.optional(),
    callId: z.string().optional(),
    name: z.string().optional(),
    reason: RefusalReason,
    message: z.string(),
    issues: z.array(z.string()).optional(),
  }),
  "cancel-requested": z.object({
    reason: z.string().optional(),
    by: z.string().optional(),
  }),
  cancelled: z.object({
    reason: z.string().optional(),
  }),
  failed: z.object({
    code: z.string().min(1),
    message: z.string(),
    retryable: z.boolean(),
  }),
  finished: z.object({
    text: z.string().optional(),
  }),
} as const;

/** Every event type, in the order a run usually meets them. */
export type EventType = keyof typeof EventData;
export const EVENT_TYPES = Object.keys(EventData) as EventType[];

/** The event types that settle a run. The first one in a log wins; nothing may follow it. */
export const TERMINAL_EVENT_TYPES = [
  "finished",
  "failed",
  "cancelled",
] as const satisfies readonly EventType[];
export type TerminalEventType = (typeof TERMINAL_EVENT_TYPES)[number];

/** True for `finished`, `failed` and `cancelled`. */
export function isTerminalEventType(type: string): type is TerminalEventType {
  return (TERMINAL_EVENT_TYPES as readonly string[]).includes(type);
}

/** When an event happened: ISO-8601 with an offset, as every envelope's `at`. */
export const EventAt = z.iso.datetime({ offset: true });

function envelope<T extends EventType>(type: T) {
  return z.object({
    v: z.literal(EVENT_VERSION),
    runId: z.string().min(1),
    seq: z.number().int().positive(),
    type: z.literal(type),
    at: EventAt,
    data: EventData[type],
  });
}

export const RunQueued = envelope("run-queued");
export type RunQueued = z.infer<typeof RunQueued>;
export const RunStarted = envelope("run-started");
export type RunStarted = z.infer<typeof RunStarted>;
export const ModelResponded = envelope("model-responded");
export type ModelResponded = z.infer<typeof ModelResponded>;
export const ToolCalled = envelope("tool-called");
export type ToolCalled = z.infer<typeof ToolCalled>;
export const ToolResult = envelope("tool-result");
export type ToolResult = z.infer<typeof ToolResult>;
export const RunParked = envelope("run-parked");
export type RunParked = z.infer<typeof RunParked>;
export const WaitpointCreated = envelope("waitpoint-created");
export type WaitpointCreated = z.infer<typeof WaitpointCreated>;
export const WaitpointCompleted = envelope("waitpoint-completed");
export type WaitpointCompleted = z.infer<typeof WaitpointCompleted>;
export const WaitpointTimedOut = envelope("waitpoint-timed-out");
export type WaitpointTimedOut = z.infer<typeof WaitpointTimedOut>;
export const OutputRecorded = envelope("output-recorded");
export type OutputRecorded = z.infer<typeof OutputRecorded>;
export const Refused = envelope("refused");
export type Refused = z.infer<typeof Refused>;
export const CancelRequested = envelope("cancel-requested");
export type CancelRequested = z.infer<typeof CancelRequested>;
export const Cancelled = envelope("cancelled");
export type Cancelled = z.infer<typeof Cancelled>;
export const Failed = envelope("failed");
export type Failed = z.infer<typeof Failed>;
export const Finished = envelope("finished");
export type Finished = z.infer<typeof Finished>;

/** Any event of a run's log: a discriminated union on `type`. */
export const RunEvent = z.discriminatedUnion("type", [
  RunQueued,
  RunStarted,
  ModelResponded,
  ToolCalled,
  ToolResult,
  RunParked,
  WaitpointCreated,
  WaitpointCompleted,
  WaitpointTimedOut,
  OutputRecorded,
  Refused,
  CancelRequested,
  Cancelled,
  Failed,
  Finished,
]);
export type RunEvent = z.infer<typeof RunEvent>;

/** The event of one given type. */
export type RunEventOf<T extends EventType> = Extract<RunEvent, { type: T }>;

/** The data of one given event type. */
export type EventDataOf<T extends EventType> = RunEventOf<T>["data"];

/**
 * An event before it has a place in a log: what writers hand to an append.
 * The store gives it its `seq`; `at` is given by the writer's clock.
 */
export type NewEvent = {
  [T in EventType]: { type: T; at: string; data: EventDataOf<T> };
}[EventType];
