/**
 * A span's place in a trace as a run's log stores it (`TraceContext`: the
 * W3C `traceparent` and `tracestate`), and back. Written by hand rather
 * than through the global propagator, so the stored form is the same
 * whichever propagators the application registered.
 */
import type { TraceContext } from "@errand/core";
import {
  type Context,
  createTraceState,
  isSpanContextValid,
  ROOT_CONTEXT,
  type Span,
  type SpanContext,
  trace,
} from "@opentelemetry/api";

const TRACEPARENT_VERSION = "00";

/** The stored form of `span`'s context; `undefined` for a span of no trace (no SDK installed). */
export function traceContextOf(span: Span): TraceContext | undefined {
  const { traceId, spanId, traceFlags, traceState } = span.spanContext();
  if (!isSpanContextValid(span.spanContext())) return undefined;
  // One byte, as the format has it: what a run's log stores must match `TraceContext`.
  const flags = (traceFlags & 0xff).toString(16).padStart(2, "0");
  const state = traceState?.serialize();
  return {
    traceparent: `${TRACEPARENT_VERSION}-${traceId}-${spanId}-${flags}`,
    ...(state ? { tracestate: state } : {}),
  };
}

/** `{ trace }` when the span has a stored form, else `{}`: what an event's data spreads in. */
export function traceField(span: Span): { trace?: TraceContext } {
  const stored = traceContextOf(span);
  return stored === undefined ? {} : { trace: stored };
}

/** The remote span context `stored` describes. */
export function spanContextFrom(stored: TraceContext): SpanContext {
  const [, traceId = "", spanId = "", flags = "00"] = stored.traceparent.split("-");
  return {
    traceId,
    spanId,
    traceFlags: Number.parseInt(flags, 16),
    isRemote: true,
    ...(stored.tracestate === undefined ? {} : { traceState: createTraceState(stored.tracestate) }),
  };
}

/** A context whose parent span is the stored one; the root context (a new trace) without one. */
export function contextFrom(stored: TraceContext | undefined): Context {
  if (stored === undefined) return ROOT_CONTEXT;
  return trace.setSpanContext(ROOT_CONTEXT, spanContextFrom(stored));
}
