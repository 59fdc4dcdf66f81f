/**
 * The chaos report: a JSON summary (for machines) and a table (for people),
 * and whether every must-be-zero figure is zero.
 */
import { writeFile } from "node:fs/promises";
import type { Durability } from "@errand/store";
import type { AcknowledgedAppends } from "./acknowledged.js";
import type { AuditFindings } from "./audit.js";
import type { BadInputRecord } from "./bad-input.js";
import type { ClientFailure } from "./client-calls.js";
import type { FaultKind, FaultRecord } from "./fault-context.js";

/** The JSON summary of one chaos run. */
export interface ChaosSummary {
  seed: number;
  /** The durability of the workers' and collectors' appends. */
  durability: Durability;
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
  /** Appends the workers logged as acknowledged, and those the runs' logs no longer hold (a failover lost them). */
  acknowledged: AcknowledgedAppends;
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
  /** The harness's client calls (`result`, `collect` waits) that failed: the client failing its caller (must be none). */
  clientFailures: ClientFailure[];
  /** The bad input thrown in, when `--bad-input` was given. */
  badInput?: BadInputRecord;
  /** Whether the faults struck one at a time (`--isolated`), so that no recovery overlaps another. */
  isolated: boolean;
  /** Recovery by fault kind: median and max over the faults of each. */
  recoveryByKind: Partial<Record<FaultKind, KindRecovery>>;
  /** Whether every must-be-zero figure is zero and every fault recovered. */
  passed: boolean;
}

/** The median and max of some durations, and how many were measured. */
interface DurationFigures {
  measured: number;
  medianMs: number;
  maxMs: number;
}

/** The recovery of the faults of one kind. */
export interface KindRecovery {
  /** Faults of the kind the flags asked for. */
  asked: number;
  /** Of those, the faults that struck a live target (the figures below are theirs). */
  struck: number;
  /** Until the runs of the worker struck ran again elsewhere (worker kills and zombies that held runs). */
  takeOver?: DurationFigures;
  /** Until every run in flight at the fault had a result. */
  settled?: DurationFigures;
}

/** The figures of `durations`; undefined when there are none. */
function figuresOf(durations: readonly (number | undefined)[]): DurationFigures | undefined {
  const sorted = durations.filter((ms): ms is number => ms !== undefined).sort((a, b) => a - b);
  if (sorted.length === 0) return undefined;
  const middle = Math.floor(sorted.length / 2);
  const median =
    sorted.length % 2 === 1
      ? (sorted[middle] ?? 0)
      : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
  return { measured: sorted.length, medianMs: Math.round(median), maxMs: sorted.at(-1) ?? 0 };
}

/** The recovery of `faults`, kind by kind. */
export function recoveryByKind(
  faults: readonly FaultRecord[],
): Partial<Record<FaultKind, KindRecovery>> {
  const byKind: Partial<Record<FaultKind, KindRecovery>> = {};
  for (const kind of new Set(faults.map((fault) => fault.kind))) {
    const ofKind = faults.filter((fault) => fault.kind === kind);
    const struck = ofKind.filter((fault) => fault.struck);
    const takeOver = figuresOf(struck.map((fault) => fault.takeOverMs));
    const settled = figuresOf(struck.map((fault) => fault.recoveryMs));
    byKind[kind] = {
      asked: ofKind.length,
      struck: struck.length,
      ...(takeOver === undefined ? {} : { takeOver }),
      ...(settled === undefined ? {} : { settled }),
    };
  }
  return byKind;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

function formatFigures(label: string, figures: DurationFigures | undefined): string {
  return figures === undefined
    ? `${label} -`
    : `${label} ${seconds(figures.medianMs)} / ${seconds(figures.maxMs)} (${figures.measured} measured)`;
}

/** The lines of the recovery by fault kind. */
function recoveryLines(summary: ChaosSummary): string[] {
  const lines = Object.entries(summary.recoveryByKind).map(
    ([kind, recovery]) =>
      `  ${kind.padEnd(15)} ${String(recovery.struck).padStart(3)} struck of ${String(recovery.asked).padStart(3)} asked: ${formatFigures("runs running again elsewhere", recovery.takeOver)}; ${formatFigures("every run then in flight settled", recovery.settled)}`,
  );
  const how = summary.isolated ? "isolated faults, one at a time" : "faults overlapping";
  return [`recovery by fault kind, median / max (${how}):`, ...lines];
}

/** Whether the audit's `findings` hold nothing that must not happen. */
export function passes(findings: AuditFindings): boolean {
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
    findings.leftBehind.length === 0
  );
}

/** What the faults of a run came to: must-be-zero counts among them. */
export function faultCounts(faults: readonly FaultRecord[]): {
  notStruck: number;
  notRecovered: number;
  deployedUnclean: number;
} {
  const struck = faults.filter((fault) => fault.struck);
  return {
    notStruck: faults.length - struck.length,
    notRecovered: struck.filter((fault) => fault.recoveryMs === undefined).length,
    deployedUnclean: faults.reduce((sum, fault) => sum + (fault.deploy?.unclean.length ?? 0), 0),
  };
}

/** The lines saying which client calls failed, by call and code, and the first messages. */
export function clientFailureLines(failures: readonly ClientFailure[]): string[] {
  if (failures.length === 0) return [];
  const counts: Record<string, number> = {};
  for (const { call, code } of failures)
    counts[`${call} ${code}`] = (counts[`${call} ${code}`] ?? 0) + 1;
  const distinct = [...new Map(failures.map((failure) => [failure.message, failure])).values()];
  return [
    `client calls failed, by call and code: ${JSON.stringify(counts)}`,
    ...distinct
      .slice(0, 5)
      .map(
        (failure) => `  ${failure.call} at ${failure.atMs} ms: ${failure.code}: ${failure.message}`,
      ),
  ];
}

/** What a fault did, beside its recovery, for its line of the table. */
function faultDetails(fault: FaultRecord): string {
  const details = [
    fault.heldMs === undefined ? "" : `spell of ${fault.heldMs} ms`,
    fault.connectionsRefused === undefined ? "" : `${fault.connectionsRefused} connections refused`,
    fault.writesRefused === undefined ? "" : `writes refused: ${fault.writesRefused}`,
    fault.promotedAfterMs === undefined ? "" : `replica promoted in ${fault.promotedAfterMs} ms`,
    fault.deploy === undefined
      ? ""
      : `${fault.deploy.replaced} replaced, longest exit ${fault.deploy.longestExitMs} ms${fault.deploy.unclean.length > 0 ? `, unclean: ${fault.deploy.unclean.join("; ")}` : ""}`,
    fault.held === undefined
      ? ""
      : `${fault.held} held${fault.takeOverMs === undefined ? "" : `, running again elsewhere in ${fault.takeOverMs} ms`}`,
  ];
  return details.filter((detail) => detail !== "").join(", ");
}

/** The line of one fault. */
function faultLine(fault: FaultRecord): string {
  const head = `  ${fault.kind.padEnd(15)} ${fault.target.padEnd(16)} at ${fault.atMs} ms`;
  if (!fault.struck) return `${head}: NOT STRUCK`;
  const details = faultDetails(fault);
  return `${head}, ${fault.inFlight} in flight, ${details === "" ? "" : `${details}, `}recovered ${fault.recoveryMs === undefined ? "never" : `in ${fault.recoveryMs} ms`}`;
}

/** One row of a table: label, value, and a note (`must be 0`). */
export type TableRow = [label: string, value: string | number, note: string];

/**
 * The audit's findings that must be empty, by their row's label, each as what
 * it names: run ids, and why where the audit says.
 */
function mustBeEmpty(findings: AuditFindings): [label: string, names: readonly string[]][] {
  return [
    ["lost", findings.lost],
    ["more than one terminal event", findings.duplicateTerminal],
    ["more than one output-recorded", findings.duplicateOutput],
    [
      "history not consistent",
      findings.inconsistentHistory.map(({ runId, problems }) => `${runId}: ${problems.join(", ")}`),
    ],
    [
      "wrong final status",
      findings.wrongStatus.map(
        ({ runId, expected, actual, error }) =>
          `${runId}: ${actual} where ${expected} was expected${error ? ` (${error})` : ""}`,
      ),
    ],
    ["result differs from its log", findings.resultDiffersFromLog],
    ["parents left waiting", findings.parentsWaiting],
    ["failed for Redis reasons", findings.failedForRedis],
    ["orphaned (unsettled, no job)", findings.orphaned],
    ["left behind by refused fires", findings.leftBehind],
  ];
}

/** The rows of the audit's findings, must-be-zero figures marked. */
export function auditRows(findings: AuditFindings): TableRow[] {
  return [
    ["runs fired", findings.fired, ""],
    ["children spawned", findings.children, ""],
    ["settled", findings.settled, ""],
    ...mustBeEmpty(findings).map(([label, names]): TableRow => [label, names.length, "must be 0"]),
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
  const counts = faultCounts(summary.faults);
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
    ["acknowledged appends checked", summary.acknowledged.checked, ""],
    ["acknowledged appends lost", summary.acknowledged.lost.length, ""],
    ["poison entries dead-lettered", summary.deadLettered, ""],
    ["shard entries still pending", summary.pendingEntries, ""],
    ["processes crashed", summary.crashed.length, "must be 0"],
    ["faults asked", summary.faults.length + summary.faultErrors.length, ""],
    ["faults struck", summary.faults.length - counts.notStruck, ""],
    ["faults with no live target", counts.notStruck, "must be 0"],
    ["faults that errored", summary.faultErrors.length, "must be 0"],
    ["faults not recovered (the system)", counts.notRecovered, "must be 0"],
    ["client calls failed (the caller)", summary.clientFailures.length, "must be 0"],
    ["deployed workers not exited cleanly", counts.deployedUnclean, "must be 0"],
    ["max recovery (ms)", recoveries.length === 0 ? "-" : Math.max(...recoveries), ""],
  ];
  return [
    ...formatRows(rows),
    "faults:",
    ...summary.faults.map(faultLine),
    ...summary.faultErrors.map((error) => `  errored: ${error}`),
    ...recoveryLines(summary),
    ...clientFailureLines(summary.clientFailures),
    `outcomes: ${JSON.stringify(findings.outcomes)}`,
    `queue jobs: ${JSON.stringify(summary.queueJobs)}`,
    ...(summary.badInput ? [`bad input: ${JSON.stringify(summary.badInput)}`] : []),
    summary.passed ? "PASSED" : `FAILED: ${failureReasons(summary, rows).join("; ")}`,
  ].join("\n");
}

/**
 * Why `summary` failed, one reason per must-be-zero row that is not zero (with
 * the first run ids or process names it names), so that the last line of a
 * report cut to its tail still says what went wrong.
 */
function failureReasons(summary: ChaosSummary, rows: readonly TableRow[]): string[] {
  const names = new Map([
    ...mustBeEmpty(summary.findings),
    ["processes crashed", summary.crashed] as const,
  ]);
  const reasons = rows
    .filter(([, value, note]) => note === "must be 0" && value !== 0)
    .map(([label, value]) => {
      const named = names.get(label)?.slice(0, 3) ?? [];
      return named.length === 0 ? `${label} ${value}` : `${label} ${value} (${named.join(", ")})`;
    });
  const { badInput } = summary;
  if (badInput !== undefined && badInput.oversizedRefused !== badInput.oversizedFired) {
    reasons.push(
      `oversized fires refused ${badInput.oversizedRefused} of ${badInput.oversizedFired}`,
    );
  }
  return reasons;
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
