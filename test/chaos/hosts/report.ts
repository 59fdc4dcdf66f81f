/**
 * The report of a `chaos:hosts` run: a JSON summary (for machines) and a
 * table (for people), and whether every must-be-zero figure is zero.
 */
import type { AuditFindings } from "../audit.js";
import type { ClientFailure } from "../client-calls.js";
import { auditRows, clientFailureLines, formatRows, passes } from "../report.js";
import type { LinkCutRecord } from "./link-cut.js";

/** The JSON summary of one `chaos:hosts` run. */
export interface HostsSummary {
  seed: number;
  durationMs: number;
  /** ms until every host's process was ready. */
  upMs: number;
  /** Each host: its name, address and what ran on it. */
  hosts: { name: string; address: string; runs: string }[];
  findings: AuditFindings;
  cut: LinkCutRecord;
  /** Processes that are no longer running at the audit (must be none). */
  crashed: string[];
  /** The harness's `result` and `collect` waits that failed (must be none). */
  clientFailures: ClientFailure[];
  /** Whether every must-be-zero figure is zero, the cut host's runs moved on and its late writes were refused. */
  passed: boolean;
}

/** Whether the audit and the cut hold nothing that must not happen. */
export function hostsPass(
  findings: AuditFindings,
  cut: LinkCutRecord,
  crashed: readonly string[],
): boolean {
  return (
    passes(findings) &&
    cut.held.length > 0 &&
    cut.takenOverMs !== undefined &&
    cut.neverRefused.length === 0 &&
    crashed.length === 0
  );
}

/** The human table of `summary`. */
export function formatHostsTable(summary: HostsSummary): string {
  const { cut } = summary;
  return [
    ...summary.hosts.map(
      (host) => `${host.name.padEnd(12)} ${host.address.padEnd(12)} ${host.runs}`,
    ),
    ...formatRows([
      ...auditRows(summary.findings),
      ["hosts up after (ms)", summary.upMs, ""],
      ["runs on the cut host", cut.held.length, "must not be 0"],
      ["cable out (ms)", cut.cutMs, ""],
      ["until they ran elsewhere (ms)", cut.takenOverMs ?? "never", ""],
      ["stale writes refused", cut.staleWritesRefused, ""],
      ["cut runs without a refused write", cut.neverRefused.length, "must be 0"],
      ["processes crashed", summary.crashed.length, "must be 0"],
      ["client calls failed", summary.clientFailures.length, "must be 0"],
    ]),
    ...clientFailureLines(summary.clientFailures),
    `cut: ${cut.host} (${cut.workerId}) at ${cut.atMs} ms`,
    `outcomes: ${JSON.stringify(summary.findings.outcomes)}`,
    summary.passed ? "PASSED" : "FAILED",
  ].join("\n");
}
