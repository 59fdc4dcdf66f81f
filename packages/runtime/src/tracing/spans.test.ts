/**
 * `inSpan` without an OpenTelemetry SDK installed: its span records nothing,
 * and `work` runs as it is, its value and its failures passed on as they
 * are (a synchronous throw becomes a rejection), and its span is of its
 * parent's trace, or of none. Spans that record are
 * covered against the real SDK by the CLI's trace tests.
 */
import { isSpanContextValid, ROOT_CONTEXT, type SpanContext, trace } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { inSpan } from "./spans.js";

const tracer = trace.getTracer("errand-spans-test");

describe("inSpan with no SDK installed", () => {
  it("runs work with a span that records nothing, and resolves with its value", async () => {
    let recording: boolean | undefined;
    const value = await inSpan(tracer, "work", {}, async (span) => {
      recording = span.isRecording();
      return 42;
    });
    expect(value).toBe(42);
    expect(recording).toBe(false);
  });

  it("passes a rejection on, and turns a synchronous throw into one", async () => {
    const failure = new Error("refused");
    await expect(inSpan(tracer, "work", {}, () => Promise.reject(failure))).rejects.toBe(failure);
    const thrown = inSpan(tracer, "work", {}, () => {
      throw failure;
    });
    expect(thrown).toBeInstanceOf(Promise);
    await expect(thrown).rejects.toBe(failure);
  });

  it("gives work a span of its parent's trace when the parent has one, and else of none", async () => {
    const stored: SpanContext = {
      traceId: "0af7651916cd43dd8448eb211c80319c",
      spanId: "b7ad6b7169203331",
      traceFlags: 1,
      isRemote: true,
    };
    const parent = trace.setSpanContext(ROOT_CONTEXT, stored);
    const underParent = await inSpan(
      tracer,
      "work",
      {},
      async (span) => span.spanContext(),
      parent,
    );
    expect(underParent).toMatchObject({ traceId: stored.traceId, spanId: stored.spanId });
    const alone = await inSpan(tracer, "work", {}, async (span) => span.spanContext());
    expect(isSpanContextValid(alone)).toBe(false);
  });
});
