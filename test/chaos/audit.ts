/**
 * The audit after the dust settled: every fired run (and every child a parent
 * spawned) is read back — its log and its stored result — and checked.
 */
import { foldRun, type RunEvent, type RunResult, settleRun } from "@errand/core";
import type { Errand } from "@errand/engine";
import type { Redis } from "ioredis";
import type { FiredRun } from "./workload.js";

/** What the audit found. */
export interface AuditFindings {
  /** Runs fired by the workload. */
  fired: number;
  /** Children the parents spawned (audited too). */
  children: number;
  /** Fired runs and children with a stored result. */
  settled: number;
  /** Runs with no stored result (must be 0). */
  lost: string[];
  /** Runs whose log holds more than one terminal event (must be 0). */
  duplicateTerminal: string[];
  /** Runs whose log holds more than one `output-recorded` (must be 0). */
  duplicateOutput: string[];
  /** Fired runs that settled with a status other than the one they must (must be 0). */
  wrongStatus: { runId: string; expected: string; actual: string; error?: string }[];
  /** Runs whose stored result's status or attempts differ from the fold of their log (must be 0). */
  resultDiffersFromLog: string[];
  /** Parent runs without a stored result (must be 0). */
  parentsWaiting: string[];
  /** `bump` calls whose side effect ran more than once. */
  repeatedSideEffects: number;
  /** How the stored results' statuses and error codes add up. */
  outcomes: Record<string, number>;
}

const TERMINAL = new Set(["finished", "failed", "cancelled"]);

async function readLog(errand: Errand, runId: string): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const event of errand.events(runId)) events.push(event);
  return events;
}

/** The runIds a parent's `spawn_agents` results name. */
function spawnedChildren(events: readonly RunEvent[]): string[] {
  const children = new Set<string>();
  for (const event of events) {
    if (event.type !== "tool-result" || !event.data.ok) continue;
    const results = (event.data.result as { results?: unknown } | undefined)?.results;
    if (!Array.isArray(results)) continue;
    for (const item of results as { runId?: unknown }[]) {
      if (typeof item.runId === "string") children.add(item.runId);
    }
  }
  return [...children];
}

/** How many `bump` calls ran their side effect more than once under `prefix`. */
async function countRepeatedSideEffects(redis: Redis, prefix: string): Promise<number> {
  let repeated = 0;
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}:chaos:bump:*`, "COUNT", 500);
    cursor = next;
    if (keys.length === 0) continue;
    const counts = await redis.mget(...keys);
    repeated += counts.filter((count) => Number(count) > 1).length;
  } while (cursor !== "0");
  return repeated;
}

/** Audits `fired` and the children they spawned. */
export async function audit(
  errand: Errand,
  redis: Redis,
  prefix: string,
  fired: readonly FiredRun[],
): Promise<AuditFindings> {
  const findings: AuditFindings = {
    fired: fired.length,
    children: 0,
    settled: 0,
    lost: [],
    duplicateTerminal: [],
    duplicateOutput: [],
    wrongStatus: [],
    resultDiffersFromLog: [],
    parentsWaiting: [],
    repeatedSideEffects: await countRepeatedSideEffects(redis, prefix),
    outcomes: {},
  };
  const check = async (runId: string): Promise<{ events: RunEvent[]; result?: RunResult }> => {
    const events = await readLog(errand, runId);
    const result = await errand.result(runId);
    if (result === undefined) findings.lost.push(runId);
    else {
      findings.settled += 1;
      const outcome = result.error ? `${result.status}:${result.error.code}` : result.status;
      findings.outcomes[outcome] = (findings.outcomes[outcome] ?? 0) + 1;
      const folded = settleRun(foldRun(events));
      if (folded?.status !== result.status || folded.attempts !== result.attempts) {
        findings.resultDiffersFromLog.push(runId);
      }
    }
    if (events.filter((event) => TERMINAL.has(event.type)).length > 1) {
      findings.duplicateTerminal.push(runId);
    }
    if (events.filter((event) => event.type === "output-recorded").length > 1) {
      findings.duplicateOutput.push(runId);
    }
    return result === undefined ? { events } : { events, result };
  };
  for (const run of fired) {
    const { events, result } = await check(run.runId);
    if (result !== undefined && result.status !== run.expected) {
      findings.wrongStatus.push({
        runId: run.runId,
        expected: run.expected,
        actual: result.status,
        ...(result.error ? { error: `${result.error.code}: ${result.error.message}` } : {}),
      });
    }
    if (run.kind !== "parent") continue;
    if (result === undefined) findings.parentsWaiting.push(run.runId);
    const children = spawnedChildren(events);
    findings.children += children.length;
    for (const child of children) await check(child);
  }
  return findings;
}
