import { TraceContext } from "@errand/core";
import { createTraceState, trace } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { engineTracer } from "./messaging-spans.js";
import { contextFrom, spanContextFrom, traceContextOf, traceField } from "./trace-context.js";

const SPAN_CONTEXT = {
  traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
  spanId: "00f067aa0ba902b7",
  traceFlags: 1,
  traceState: createTraceState("vendor=opaque"),
};

describe("a span's stored trace context", () => {
  it("is nothing without an SDK: errand's spans are then no-ops and logs carry no trace", () => {
    const span = engineTracer.startSpan("send q");
    expect(traceContextOf(span)).toBeUndefined();
    expect(traceField(span)).toEqual({});
    span.end();
  });

  it("is the W3C traceparent and tracestate, and reads back as the same remote parent", () => {
    const stored = traceContextOf(trace.wrapSpanContext(SPAN_CONTEXT));
    expect(stored).toEqual({
      traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
      tracestate: "vendor=opaque",
    });
    expect(TraceContext.parse(stored)).toEqual(stored);
    const parent = trace.getSpanContext(contextFrom(stored));
    expect(parent).toMatchObject({
      ...SPAN_CONTEXT,
      traceState: expect.anything(),
      isRemote: true,
    });
    expect(spanContextFrom(stored!).traceState?.serialize()).toBe("vendor=opaque");
  });

  it("keeps its flags to the one byte the format has, so a log's run-queued and run-started stay valid", () => {
    const stored = traceContextOf(trace.wrapSpanContext({ ...SPAN_CONTEXT, traceFlags: 0x101 }));
    expect(stored?.traceparent).toBe("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
    expect(TraceContext.safeParse(stored).success).toBe(true);
  });

  it("starts a new trace when the run stored none", () => {
    expect(trace.getSpanContext(contextFrom(undefined))).toBeUndefined();
  });
});
