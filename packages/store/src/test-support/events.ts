/**
 * New events for tests, with valid data and deterministic times: event `n` of
 * a test happens `n` seconds after {@link TEST_START}. Test-only: not exported.
 */
import type { EventDataOf, EventType, NewEvent } from "@errand/core";

/** The instant tests start their runs at. */
const TEST_START = Date.parse("2026-01-01T00:00:00.000Z");

let clock = 0;

/** The next deterministic instant, ISO-8601. */
function nextAt(): string {
  clock += 1;
  return new Date(TEST_START + clock * 1000).toISOString();
}

/** A new event of `type` with `data`, at the next instant. */
export function newEvent<T extends EventType>(type: T, data: EventDataOf<T>): NewEvent {
  return { type, at: nextAt(), data } as NewEvent;
}

/** `run-queued` of agent `researcher`, a root run; `data` overrides any field. */
export function queued(data: Partial<EventDataOf<"run-queued">> = {}): NewEvent {
  return newEvent("run-queued", {
    agent: "researcher",
    input: { question: "what is errand?" },
    rootRunId: "root",
    depth: 0,
    limits: { maxSteps: 10 },
    metadata: {},
    ...data,
  });
}

/**
 * `run-queued` as {@link queued}, with a deadline far ahead: the append that
 * opens its run writes its shard entry, which a quiet opening (a run with
 * neither a deadline nor a budget) does not.
 */
export function queuedLoudly(data: Partial<EventDataOf<"run-queued">> = {}): NewEvent {
  return queued({ limits: { maxSteps: 10, deadlineAt: "2100-01-01T00:00:00.000Z" }, ...data });
}

/** `run-started` of `attempt` on worker `worker-1`. */
export function started(attempt = 1): NewEvent {
  return newEvent("run-started", { attempt, workerId: "worker-1" });
}

/** `model-responded` for `step`: text only, no tool calls. */
export function modelResponded(step: number, text = `step ${step}`): NewEvent {
  return newEvent("model-responded", {
    step,
    text,
    calls: [],
    usage: { inputTokens: 10, outputTokens: 5 },
    finish: "stop",
  });
}

/** `output-recorded` of `output` at `step`. */
export function outputRecorded(step: number, output: unknown): NewEvent {
  return newEvent("output-recorded", { step, callId: `call-${step}`, output });
}

/** `finished`, optionally with closing text. */
export function finished(text?: string): NewEvent {
  return newEvent("finished", text === undefined ? {} : { text });
}

/** `failed` with `code`. */
export function failed(code = "model_error"): NewEvent {
  return newEvent("failed", { code, message: `failed: ${code}`, retryable: false });
}

/** `cancelled`. */
export function cancelled(reason?: string): NewEvent {
  return newEvent("cancelled", reason === undefined ? {} : { reason });
}

/** `cancel-requested` by `by`. */
export function cancelRequested(by = "client"): NewEvent {
  return newEvent("cancel-requested", { reason: "no longer needed", by });
}
