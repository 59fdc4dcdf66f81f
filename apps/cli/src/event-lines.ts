/**
 * A run's events as lines for people: seq, time, type and what happened,
 * redacted (core's `redactSecrets`, error messages included) before the
 * line is cut to its width.
 */
import { type RunEvent, redactSecrets } from "@errand/core";
import { jsonText as json } from "./output.js";
import { truncateCell } from "./table.js";

const DETAIL_WIDTH = 100;

/** What one event says, in a few words. */
function eventDetail(event: RunEvent): string {
  switch (event.type) {
    case "run-queued": {
      const { agent, depth, parentRunId, outputSchema } = event.data;
      const parent = parentRunId === undefined ? "" : ` parent ${parentRunId}`;
      return `${agent} depth ${depth}${parent}${outputSchema ? " with an output schema" : ""}`;
    }
    case "run-started":
      return `attempt ${event.data.attempt} on ${event.data.workerId}`;
    case "model-responded": {
      const { step, text, calls, finish } = event.data;
      const said = text ? ` said ${json(text)}` : "";
      const called = calls.length > 0 ? ` called ${calls.map((c) => c.name).join(", ")}` : "";
      return `step ${step}${said}${called} (${finish})`;
    }
    case "tool-called":
      return `step ${event.data.step} ${event.data.name}(${json(event.data.args)})`;
    case "tool-result": {
      const { step, callId, ok, result, error } = event.data;
      return `step ${step} ${callId} ${ok ? `ok ${json(result)}` : `error ${error ?? ""}`}`;
    }
    case "run-parked":
      return `step ${event.data.step} ${event.data.reason}`;
    case "waitpoint-created": {
      const { step, question, timeoutAt } = event.data;
      return `step ${step} asks ${json(question)}${timeoutAt ? ` until ${timeoutAt}` : ""}`;
    }
    case "waitpoint-completed": {
      const { answer, answeredBy } = event.data;
      return `${answeredBy ? `${answeredBy} answered` : "answered"} ${json(answer)}`;
    }
    case "waitpoint-timed-out":
      return "no answer came in time";
    case "output-recorded":
      return `step ${event.data.step} ${json(event.data.output)}`;
    case "refused":
      return `${event.data.reason}: ${event.data.message}`;
    case "cancel-requested":
      return [event.data.by && `by ${event.data.by}`, event.data.reason].filter(Boolean).join(": ");
    case "cancelled":
      return event.data.reason ?? "";
    case "failed":
      return `${event.data.code}: ${event.data.message}`;
    case "finished":
      return event.data.text === undefined ? "" : json(event.data.text);
  }
}

/** One line for `event`: `seq  at  type  detail`. */
export function eventLine(event: RunEvent): string {
  const detail = truncateCell(eventDetail(redactSecrets(event) as RunEvent), DETAIL_WIDTH);
  return `${String(event.seq).padStart(4)}  ${event.at}  ${event.type.padEnd(19)}  ${detail}`.trimEnd();
}
