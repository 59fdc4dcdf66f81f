/**
 * Spans through `@opentelemetry/api` only: without an SDK installed by the
 * application every span is a no-op that costs a few allocations. errand's
 * packages open their spans with {@link inSpan}, so each one ends once, and
 * a failure reads the same everywhere: status `ERROR` with `error.type`.
 */
import { isErrandError, redactSecrets } from "@errand/core";
import {
  type Context,
  context,
  isSpanContextValid,
  type Span,
  type SpanOptions,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import { errorMessage, isParkRequest } from "../errors.js";

/** The attribute naming the class of error a span ended with. */
export const ERROR_TYPE = "error.type";

/** `error.type` of `error`: an `ErrandError`'s code, else the error's name. */
function errorType(error: unknown): string {
  if (isErrandError(error)) return error.code;
  return error instanceof Error ? error.name : "Error";
}

/** Marks `span` failed with `error`: status `ERROR`, its message (redacted), and `error.type`. */
export function markSpanFailed(span: Span, error: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: redactSecrets(errorMessage(error)) });
  span.setAttribute(ERROR_TYPE, errorType(error));
}

/** Runs `work` with `span`, then ends `span`, marking it failed on a rejection other than a `ParkRequest`. */
async function endWhenSettled<T>(span: Span, work: (span: Span) => Promise<T>): Promise<T> {
  try {
    return await work(span);
  } catch (error) {
    if (!isParkRequest(error)) markSpanFailed(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/**
 * Runs `work` inside a new span named `name`, active for everything `work`
 * starts, and ends the span when `work` settles. A rejection marks the span
 * failed and is passed on, except a `ParkRequest` (parking is waiting, not
 * failing). The span's parent is `parent`, default the active context. A
 * span that records nothing (no SDK installed, or one that sampled it out)
 * has nothing to mark or end: `work` runs without the wrapper's promises.
 * It is started as `tracer.startActiveSpan` would start it; one that belongs
 * to no trace (no SDK installed and no stored parent) is not set in a
 * context of its own either: a span under it starts from no parent just as
 * from it, so `work` runs in `parent`'s context, without the copy of it.
 */
export function inSpan<T>(
  tracer: Tracer,
  name: string,
  options: SpanOptions,
  work: (span: Span) => Promise<T>,
  parent: Context = context.active(),
): Promise<T> {
  const span = tracer.startSpan(name, options, parent);
  if (span.isRecording()) {
    return context.with(trace.setSpan(parent, span), endWhenSettled<T>, undefined, span, work);
  }
  try {
    if (!isSpanContextValid(span.spanContext())) return work(span);
    return context.with(trace.setSpan(parent, span), work, undefined, span);
  } catch (error) {
    return Promise.reject(error);
  }
}
