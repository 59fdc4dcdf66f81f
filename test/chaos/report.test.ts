/**
 * The chaos report's last line: CI shows only the tail of a failed run, so the
 * line that says FAILED must also say why.
 */
import { describe, expect, it } from "vitest";
import { type AuditFindings, noFindings } from "./audit.js";
import { type ChaosSummary, formatTable } from "./report.js";

function findings(overrides: Partial<AuditFindings>): AuditFindings {
  return { ...noFindings(3, 0), settled: 3, outcomes: { succeeded: 3 }, ...overrides };
}

function summary(overrides: Partial<ChaosSummary>): ChaosSummary {
  return {
    seed: 1,
    durability: "acknowledged",
    durationMs: 1000,
    findings: findings({}),
    faults: [],
    staleWritesRefused: 0,
    refusedFires: {},
    outOfMemory: { writesWaited: 0, locksKept: 0 },
    acknowledged: { checked: 0, lost: [] },
    deadLettered: 0,
    pendingEntries: 0,
    queueJobs: {},
    crashed: [],
    faultErrors: [],
    clientFailures: [],
    isolated: false,
    recoveryByKind: {},
    passed: true,
    ...overrides,
  };
}

const lastLine = (table: string) => table.split("\n").at(-1);

describe("the chaos report's last line", () => {
  it("says PASSED alone when the run passed", () => {
    expect(lastLine(formatTable(summary({})))).toBe("PASSED");
  });

  it("names each must-be-zero figure that is not zero, with the runs and processes it counts", () => {
    const failed = summary({
      passed: false,
      findings: findings({ lost: ["run_a", "run_b"], orphaned: ["run_c"] }),
      crashed: ["worker-4"],
    });
    expect(lastLine(formatTable(failed))).toBe(
      "FAILED: lost 2 (run_a, run_b); orphaned (unsettled, no job) 1 (run_c); processes crashed 1 (worker-4)",
    );
  });

  it("names oversized fires that were not refused", () => {
    const failed = summary({
      passed: false,
      badInput: { malformedJobs: 4, oversizedFired: 2, oversizedRefused: 1, poisonEntries: 4 },
    });
    expect(lastLine(formatTable(failed))).toBe("FAILED: oversized fires refused 1 of 2");
  });
});
