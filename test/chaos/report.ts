/**
 * The chaos report: a JSON summary (for machines) and a table (for people),
 * and whether every must-be-zero figure is zero.
 */
import { writeFile } from "node:fs/promises";
import type { AuditFindings } from "./audit.js";
import type { BadInputRecord } from "./bad-input.js";
import type { FaultRecord } from "./faults.js";

/** The JSON summary of one chaos run. */
export interface ChaosSummary {
  seed: number;
  durationMs: number;
  findings: AuditFindings;
  faults: FaultRecord[];
  /** Appends refused because the log moved on (a stale attempt's writes), counted from the workers' logs. */
  staleWritesRefused: number;
  /** Fires refused as retryable without a run (Redis out of memory), by code: each was made again. */
  refusedFires: Record<string, number>;
  /**
   * What Redis out of memory did to the processes, from their logs: writes
   * that waited for room (each counted once, however many tries) and times
   * a worker kept its job locks by their expiry.
   */
  outOfMemory: { writesWaited: number; locksKept: number };
  /** Shard stream entries the collectors dead-lettered. */
  deadLettered: number;
  /** Shard stream entries still pending at the audit (poison not yet dead-lettered, or stuck). */
  pendingEntries: number;
  /** The runs queue's jobs by state at the audit. */
  queueJobs: Record<string, number>;
  /** Worker and collector processes (not killed by a fault) that are no longer running (must be none). */
  crashed: string[];
  /** Faults that could not be struck or measured, with why (must be none). */
  faultErrors: string[];
  /** The bad input thrown in, when `--bad-input` was given. */
  badInput?: BadInputRecord;
  /** Whether every must-be-zero figure is zero and every fault recovered. */
  passed: boolean;
}

/** Whether `findings` and `faults` hold nothing that must not happen. */
export function passes(findings: AuditFindings, faults: readonly FaultRecord[]): boolean {
  return (
    findings.lost.length === 0 &&
    findings.duplicateTerminal.length === 0 &&
    findings.duplicateOutput.length === 0 &&
    findings.inconsistentHistory.length === 0 &&
    findings.wrongStatus.length === 0 &&
    findings.resultDiffersFromLog.length === 0 &&
    findings.parentsWaiting.length === 0 &&
    findings.failedForRedis.length === 0 &&
    findings.orphaned.length === 0 &&
    findings.leftBehind.length === 0 &&
    faults.every((fault) => fault.recoveryMs !== undefined)
  );
}

/** One row of a table: label, value, and a note (`must be 0`). */
export type TableRow = [label: string, value: string | number, note: string];

/** The rows of the audit's findings, must-be-zero figures marked. */
export function auditRows(findings: AuditFindings): TableRow[] {
  return [
    ["runs fired", findings.fired, ""],
    ["children spawned", findings.children, ""],
    ["settled", findings.settled, ""],
    ["lost", findings.lost.length, "must be 0"],
    ["more than one terminal event", findings.duplicateTerminal.length, "must be 0"],
    ["more than one output-recorded", findings.duplicateOutput.length, "must be 0"],
    ["history not consistent", findings.inconsistentHistory.length, "must be 0"],
    ["wrong final status", findings.wrongStatus.length, "must be 0"],
    ["result differs from its log", findings.resultDiffersFromLog.length, "must be 0"],
    ["parents left waiting", findings.parentsWaiting.length, "must be 0"],
    ["failed for Redis reasons", findings.failedForRedis.length, "must be 0"],
    ["orphaned (unsettled, no job)", findings.orphaned.length, "must be 0"],
    ["left behind by refused fires", findings.leftBehind.length, "must be 0"],
    ["side-effecting tool calls repeated", findings.repeatedSideEffects, ""],
  ];
}

/** `rows` as aligned lines. */
export function formatRows(rows: readonly TableRow[]): string[] {
  const width = Math.max(...rows.map(([label]) => label.length));
  return rows.map(
    ([label, value, note]) => `${label.padEnd(width)}  ${String(value).padStart(8)}  ${note}`,
  );
}

/** The human table of `summary`. */
export function formatTable(summary: ChaosSummary): string {
  const { findings } = summary;
  const recoveries = summary.faults
    .map((fault) => fault.recoveryMs)
    .filter((ms): ms is number => ms !== undefined);
  const rows: TableRow[] = [
    ...auditRows(findings),
    [
      "fires refused, then made again",
      Object.values(summary.refusedFires).reduce((sum, count) => sum + count, 0),
      "",
    ],
    ["writes that waited for room", summary.outOfMemory.writesWaited, ""],
    ["job locks kept by their expiry", summary.outOfMemory.locksKept, ""],
    ["stale writes refused", summary.staleWritesRefused, ""],
    ["poison entries dead-lettered", summary.deadLettered, ""],
    ["shard entries still pending", summary.pendingEntries, ""],
    ["processes crashed", summary.crashed.length, "must be 0"],
    ["faults injected", summary.faults.length, ""],
    ["faults that errored", summary.faultErrors.length, "must be 0"],
    ["faults not recovered", summary.faults.length - recoveries.length, "must be 0"],
    ["max recovery (ms)", recoveries.length === 0 ? "-" : Math.max(...recoveries), ""],
  ];
  const faultLines = summary.faults.map(
    (fault) =>
      `  ${fault.kind.padEnd(15)} ${fault.target.padEnd(14)} at ${fault.atMs} ms, ${fault.inFlight} in flight, ${fault.heldMs === undefined ? "" : `out of memory for ${fault.heldMs} ms, `}recovered ${fault.recoveryMs === undefined ? "never" : `in ${fault.recoveryMs} ms`}${fault.takenOver === undefined ? "" : `, taken over: ${fault.takenOver}`}`,
  );
  return [
    ...formatRows(rows),
    "faults:",
    ...faultLines,
    `outcomes: ${JSON.stringify(findings.outcomes)}`,
    `queue jobs: ${JSON.stringify(summary.queueJobs)}`,
    ...(summary.badInput ? [`bad input: ${JSON.stringify(summary.badInput)}`] : []),
    summary.passed ? "PASSED" : "FAILED",
  ].join("\n");
}

/**
 * Prints `summary` as JSON, then `table`; writes the JSON to `jsonFile` too
 * when given; the process then exits 1 unless the summary `passed`.
 */
export async function publishSummary(
  summary: { passed: boolean },
  table: string,
  jsonFile: string | undefined,
): Promise<void> {
  const json = `${JSON.stringify(summary, null, 2)}\n`;
  process.stdout.write(`${json}\n${table}\n`);
  if (jsonFile !== undefined) await writeFile(jsonFile, json);
  process.exitCode = summary.passed ? 0 : 1;
}
