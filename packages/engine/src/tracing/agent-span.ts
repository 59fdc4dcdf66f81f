/**
 * `invoke_agent {agent}`: one span per attempt of a run (per `run-started`),
 * a child of the attempt's `process` span. Its context is stored in the
 * `run-started` it writes; the next attempt links to it, so a crash and its
 * recovery read as one story. What the attempt wrote that a trace reader
 * wants to see without a span of its own — refusals, the recorded output,
 * how the run settled — become its events and attributes.
 */
import { type RunEvent, type RunState, redactSecrets, type TraceContext } from "@errand/core";
import type { EventSink, Model } from "@errand/runtime";
import {
  ERROR_TYPE,
  GEN_AI,
  inSpan,
  modelIdentity,
  setContentAttribute,
} from "@errand/runtime/ops";
import { type Link, type Span, SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { engineTracer } from "./messaging-spans.js";
import { spanContextFrom } from "./trace-context.js";

/** What names an attempt's span. */
export interface AttemptSpanOptions {
  agent: string;
  model: Model;
  runId: string;
  attempt: number;
  /** The previous attempt's stored span, linked to. */
  previous: TraceContext | undefined;
}

/** The stored span of the last `run-started` in `log` that has one: the previous attempt's. */
export function lastAttemptTrace(log: readonly RunEvent[]): TraceContext | undefined {
  for (let index = log.length - 1; index >= 0; index--) {
    const event = log[index]!;
    if (event.type === "run-started" && event.data.trace) return event.data.trace;
  }
  return undefined;
}

/** Runs `work` inside the attempt's `invoke_agent` span. */
export function inAttemptSpan<T>(
  options: AttemptSpanOptions,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  const { agent, model, runId, attempt, previous } = options;
  const identity = modelIdentity(model);
  const links: Link[] =
    previous === undefined
      ? []
      : [{ context: spanContextFrom(previous), attributes: { "errand.link": "previous_attempt" } }];
  const attributes = {
    [GEN_AI.operationName]: "invoke_agent",
    [GEN_AI.agentName]: agent,
    [GEN_AI.providerName]: identity.provider,
    [GEN_AI.requestModel]: identity.model,
    [GEN_AI.conversationId]: runId,
    "errand.run.id": runId,
    "errand.run.attempt": attempt,
  };
  const spanOptions = { kind: SpanKind.INTERNAL, attributes, links };
  return inSpan(engineTracer, `invoke_agent ${agent}`, spanOptions, work);
}

/** Records how the attempt left the run: `errand.run.status`, and a failed run as an error (its message redacted). */
export function recordAttemptEnd(span: Span, state: RunState): void {
  span.setAttribute("errand.run.status", state.status);
  if (state.error === undefined) return;
  span.setStatus({ code: SpanStatusCode.ERROR, message: redactSecrets(state.error.message) });
  span.setAttribute(ERROR_TYPE, state.error.code);
}

function addEventsOf(span: Span, events: readonly RunEvent[], recordContent: boolean): void {
  for (const event of events) {
    if (event.type === "refused") {
      const { reason, name, callId, message } = event.data;
      span.addEvent("errand.refused", {
        "errand.refusal.reason": reason,
        "errand.refusal.message": redactSecrets(message),
        ...(name === undefined ? {} : { [GEN_AI.toolName]: name }),
        ...(callId === undefined ? {} : { [GEN_AI.toolCallId]: callId }),
      });
    } else if (event.type === "output-recorded") {
      span.addEvent("errand.output_recorded", { [GEN_AI.toolCallId]: event.data.callId });
      setContentAttribute(span, recordContent, "errand.output", () => event.data.output);
    }
  }
}

/**
 * `sink`, whose appends also put on `span` an event per refusal
 * (`errand.refused`) and per recorded output (`errand.output_recorded`;
 * with `recordContent`, the output itself, redacted, as `errand.output`).
 */
export function attemptEventsSink(sink: EventSink, span: Span, recordContent: boolean): EventSink {
  return {
    async append(runId, expectedSeq, events) {
      const written = await sink.append(runId, expectedSeq, events);
      if (span.isRecording()) addEventsOf(span, written, recordContent);
      return written;
    },
  };
}
