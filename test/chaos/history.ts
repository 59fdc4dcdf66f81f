/**
 * Whether a run's log reads as one consistent history, however many workers
 * wrote it: its events numbered 1, 2, 3, … with none missing or repeated,
 * each step's model response logged once, each tool call's result logged
 * once, and nothing after the event that settled it. A stale worker whose
 * writes got past the fence would leave a step or a result twice.
 */
import { isTerminalEventType, type RunEvent } from "@errand/core";

/** What is wrong with the history in `events` (a run's log, in order); empty when nothing is. */
export function historyProblems(events: readonly RunEvent[]): string[] {
  const problems: string[] = [];
  const steps = new Set<number>();
  const results = new Set<string>();
  let settledAt: number | undefined;
  for (const [i, event] of events.entries()) {
    if (event.seq !== i + 1) problems.push(`event ${i + 1} has seq ${event.seq}`);
    if (settledAt !== undefined) {
      problems.push(`${event.type} at seq ${event.seq} after the run settled at seq ${settledAt}`);
    }
    if (isTerminalEventType(event.type)) settledAt ??= event.seq;
    if (event.type === "model-responded") {
      if (steps.has(event.data.step)) problems.push(`step ${event.data.step} responded twice`);
      steps.add(event.data.step);
    }
    if (event.type === "tool-result") {
      const call = `${event.data.step}/${event.data.callId}`;
      if (results.has(call)) problems.push(`call ${call} has two results`);
      results.add(call);
    }
  }
  return problems;
}
