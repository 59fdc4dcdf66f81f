/**
 * What a worker measures of the runs it works on, fed by `processRun`: each
 * step's duration, tokens and tool calls from the events the run appends
 * (the same ones its log keeps), and each run it settles.
 */
import type { NewEvent, RunState } from "@errand/core";
import type { EventSink } from "@errand/runtime";
import type { PrometheusMetrics } from "./prometheus-metrics.js";

/** The run metrics of one worker. */
export interface RunMetrics {
  /**
   * `sink`, measuring what run `state` (of agent `agent`, on model `model`)
   * appends from now on: one call per step.
   */
  meter(sink: EventSink, state: RunState, agent: string, model: string): EventSink;
  /** Counts run `state`, which this worker just settled. */
  settled(state: RunState): void;
}

const SECOND_MS = 1_000;

/** The outcome label of a tool call's closing event; `undefined` for other events. */
function toolOutcome(event: NewEvent): { callId: string; outcome: string } | undefined {
  if (event.type === "tool-result") {
    return { callId: event.data.callId, outcome: event.data.ok ? "ok" : "error" };
  }
  if (event.type === "output-recorded") return { callId: event.data.callId, outcome: "recorded" };
  if (event.type === "refused" && event.data.callId !== undefined) {
    return { callId: event.data.callId, outcome: "refused" };
  }
  return undefined;
}

/** Tool names by call id: the calls of the run's steps so far (a parked call resumes). */
function toolNamesOf(state: RunState): Map<string, string> {
  const names = new Map<string, string>();
  for (const step of state.steps) for (const call of step.calls) names.set(call.callId, call.name);
  return names;
}

/** Run metrics on `metrics`, timed by `now` (ms). */
export function createRunMetrics(
  metrics: PrometheusMetrics,
  now: () => number = Date.now,
): RunMetrics {
  return {
    meter(sink, state, agent, model) {
      // The calls of earlier steps, and of new ones as they are appended.
      const toolNames = toolNamesOf(state);
      let stepStartedAt = now();
      /** Counts `event`'s tokens and tool call; true for a `model-responded` (a step's end). */
      const observe = (event: NewEvent): boolean => {
        if (event.type === "model-responded") {
          const { inputTokens, outputTokens } = event.data.usage;
          metrics.tokens.inc({ agent, model, type: "input" }, inputTokens);
          metrics.tokens.inc({ agent, model, type: "output" }, outputTokens);
          for (const call of event.data.calls) toolNames.set(call.callId, call.name);
          return true;
        }
        const closed = toolOutcome(event);
        if (closed !== undefined) {
          const tool = toolNames.get(closed.callId) ?? "unknown";
          metrics.toolCalls.inc({ agent, tool, outcome: closed.outcome });
        }
        return false;
      };
      return {
        async append(runId, expectedSeq, events) {
          const written = await sink.append(runId, expectedSeq, events);
          let stepEnded = false;
          // Indexed: a step's append is a handful of events, not worth an iterator.
          for (let index = 0; index < events.length; index++) {
            if (observe(events[index]!)) stepEnded = true;
          }
          if (stepEnded) {
            const at = now();
            metrics.stepDuration.observe({ agent }, (at - stepStartedAt) / SECOND_MS);
            stepStartedAt = at;
          }
          return written;
        },
      };
    },
    settled(state) {
      const agent = state.queued?.agent ?? "unknown";
      const { status } = state;
      const errorCode = state.error?.code;
      metrics.runsSettled.inc(
        errorCode === undefined ? { agent, status } : { agent, status, error_code: errorCode },
      );
      if (state.createdAt !== undefined && state.settledAt !== undefined) {
        const seconds = (Date.parse(state.settledAt) - Date.parse(state.createdAt)) / SECOND_MS;
        metrics.runDuration.observe({ agent, status }, Math.max(0, seconds));
      }
    },
  };
}
