/**
 * Acknowledged appends lost. Each worker logs two appends right after Redis
 * acknowledged them: "run started" (its attempt's `run-started` at `seq`) and
 * "run ended" (the attempt's terminal event at `seq`). Replication to a
 * replica is asynchronous, so a master failing over can lose a write it has
 * acknowledged; the run is then resumed from the shorter log and its history
 * goes on from there. Read after the dust settled, each logged append must
 * still be at its seq: one missing or replaced by another event was lost.
 */
import { isTerminalEventType, type RunEvent } from "@errand/core";
import type { Errand } from "@errand/engine";
import { readLog } from "./audit.js";
import type { ChaosProcess, LogLine } from "./chaos-process.js";

/** One acknowledged append no longer in its run's log. */
interface LostAppend {
  runId: string;
  seq: number;
  /** What the worker logged: "run started" or "run ended". */
  msg: string;
  /** The event at `seq` now, if any. */
  now?: string;
}

/** How many acknowledged appends the workers logged, and which of them the logs lost. */
export interface AcknowledgedAppends {
  checked: number;
  lost: LostAppend[];
}

/** Whether `event` is the append `line` says was acknowledged. */
function isLoggedAppend(line: LogLine, event: RunEvent): boolean {
  if (line.msg === "run ended") return isTerminalEventType(event.type);
  return (
    event.type === "run-started" &&
    event.data.workerId === line.workerId &&
    event.data.attempt === line.attempt
  );
}

/** Checks every "run started" and "run ended" line of `workers` against the runs' logs now. */
export async function lostAcknowledgedAppends(
  errand: Errand,
  workers: readonly ChaosProcess[],
): Promise<AcknowledgedAppends> {
  const lines = workers.flatMap((worker) => [
    ...worker.linesWith("run started"),
    ...worker.linesWith("run ended"),
  ]);
  const logs = new Map<string, Promise<RunEvent[]>>();
  const logOf = (runId: string) => {
    const log = logs.get(runId) ?? readLog(errand, runId);
    logs.set(runId, log);
    return log;
  };
  const lost: LostAppend[] = [];
  for (const line of lines) {
    const runId = String(line.runId);
    const seq = Number(line.seq);
    const event = (await logOf(runId)).find((candidate) => candidate.seq === seq);
    if (event !== undefined && isLoggedAppend(line, event)) continue;
    lost.push({ runId, seq, msg: String(line.msg), ...(event ? { now: event.type } : {}) });
  }
  return { checked: lines.length, lost };
}
