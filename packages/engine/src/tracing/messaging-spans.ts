/**
 * The messaging side of a run's trace, in the OpenTelemetry messaging
 * conventions: `send {queue}` (PRODUCER) while fire writes and enqueues a
 * run, `process {queue}` (CONSUMER) while a worker handles its job, a child
 * of the `send` span stored in the run's `run-queued`. The message is the
 * run: `messaging.message.id` is its runId.
 */
import type { TraceContext } from "@errand/core";
import { inSpan, markSpanFailed } from "@errand/runtime/ops";
import { type Attributes, type Span, SpanKind, trace } from "@opentelemetry/api";
import { contextFrom } from "./trace-context.js";

/** The tracer of the engine's spans. */
export const engineTracer = trace.getTracer("@errand/engine");

/**
 * `messaging.system`: the conventions list no value for Redis-backed queues,
 * so errand names the queue library, as its instrumentations do.
 */
const MESSAGING_SYSTEM = "bullmq";

function messagingAttributes(
  operation: "send" | "process",
  queue: string,
  runId: string,
): Attributes {
  return {
    "messaging.system": MESSAGING_SYSTEM,
    "messaging.operation.type": operation,
    "messaging.operation.name": operation,
    "messaging.destination.name": queue,
    "messaging.message.id": runId,
  };
}

/** Starts the `send {queue}` span of run `runId`, a child of the active context; the caller ends it. */
export function startSendSpan(queue: string, runId: string): Span {
  return engineTracer.startSpan(`send ${queue}`, {
    kind: SpanKind.PRODUCER,
    attributes: messagingAttributes("send", queue, runId),
  });
}

/** Ends a `send` span: failed with `error` when the run was not fired. */
export function endSendSpan(span: Span, error: unknown): void {
  if (error !== undefined) markSpanFailed(span, error);
  span.end();
}

/**
 * Runs `work` inside the `process {queue}` span of run `runId`, a child of
 * `queued` (the run's stored `send` span; a new trace without one).
 */
export function inProcessSpan<T>(
  queue: string,
  runId: string,
  queued: TraceContext | undefined,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  const options = {
    kind: SpanKind.CONSUMER,
    attributes: messagingAttributes("process", queue, runId),
  };
  return inSpan(engineTracer, `process ${queue}`, options, work, contextFrom(queued));
}
