/**
 * An in-memory {@link EventSink} with the same rules as the Redis store:
 * fencing on the expected seq, nothing after a terminal event, one recorded
 * output per run, every event checked against its schema. For tests (ours and
 * users') and for running agents without Redis.
 */
import {
  ErrandError,
  EVENT_VERSION,
  foldRun,
  isTerminalEventType,
  type NewEvent,
  RunEvent,
  type RunState,
} from "@errand/core";
import type { EventSink } from "./sink.js";

/** An {@link EventSink} that keeps every run's log in memory and lets you read it. */
export interface MemorySink extends EventSink {
  /** The events of `runId` so far, in order (a copy; empty for an unknown run). */
  events(runId: string): RunEvent[];
  /** The folded state of `runId`'s log. */
  state(runId: string): RunState;
}

function checkBatch(runId: string, log: readonly RunEvent[], events: readonly NewEvent[]): void {
  let hasOutput = log.some((e) => e.type === "output-recorded");
  events.forEach((event, index) => {
    if (isTerminalEventType(event.type) && index < events.length - 1) {
      throw new ErrandError(
        "run_settled",
        `run ${runId}: a ${event.type} event must be the last one of its append`,
        { details: { runId } },
      );
    }
    if (event.type === "output-recorded") {
      if (hasOutput) {
        throw new ErrandError(
          "output_already_recorded",
          `run ${runId} already has a recorded structured output`,
          { details: { runId } },
        );
      }
      hasOutput = true;
    }
  });
}

function toRunEvent(runId: string, seq: number, event: NewEvent): RunEvent {
  const parsed = RunEvent.safeParse({ v: EVENT_VERSION, runId, seq, ...event });
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
  throw new ErrandError(
    "invalid_event",
    `run ${runId}: ${event.type} event ${seq} is invalid: ${problems.join("; ")}`,
    { details: { runId, seq, type: event.type } },
  );
}

/** Creates an empty {@link MemorySink}. */
export function createMemorySink(): MemorySink {
  const logs = new Map<string, RunEvent[]>();
  const logOf = (runId: string) => logs.get(runId) ?? [];
  return {
    async append(runId, expectedSeq, events) {
      const log = logOf(runId);
      if (expectedSeq !== log.length) {
        throw new ErrandError(
          "seq_conflict",
          `run ${runId}: expected the log to end at seq ${expectedSeq} but it ends at ${log.length}`,
          { details: { runId, expectedSeq, seq: log.length } },
        );
      }
      const last = log.at(-1);
      if (last && isTerminalEventType(last.type)) {
        throw new ErrandError("run_settled", `run ${runId} is settled (${last.type})`, {
          details: { runId, seq: last.seq },
        });
      }
      checkBatch(runId, log, events);
      const written = events.map((event, i) => toRunEvent(runId, expectedSeq + i + 1, event));
      logs.set(runId, [...log, ...written]);
      return written;
    },
    events: (runId) => [...logOf(runId)],
    state: (runId) => foldRun(logOf(runId), runId),
  };
}
