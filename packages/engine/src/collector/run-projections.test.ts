import { EVENT_VERSION, foldRun, type RunEvent, type RunState } from "@errand/core";
import { describe, expect, it } from "vitest";
import { RunProjections } from "./run-projections.js";
import { type PlannedRun, planRuns } from "./test-support/planned-runs.js";

/** A planned run's events as its log holds them: seq 1, 2, 3, … */
function logOf(run: PlannedRun): RunEvent[] {
  return run.events.map(
    (event, index) =>
      ({ v: EVENT_VERSION, runId: run.runId, seq: index + 1, ...event }) as RunEvent,
  );
}

const runs = planRuns({ count: 12, shards: 2, parents: 2, seed: "projections" });

describe("RunProjections", () => {
  it("folds a run followed from its first event exactly as the fold of its log, whatever its ending", () => {
    const projections = new RunProjections();
    for (const run of runs) {
      const log = logOf(run);
      let projection: RunState | undefined;
      for (const event of log) projection = projections.apply(event);
      expect(projection).toStrictEqual(foldRun(log, run.runId));
    }
    expect(projections.size).toBe(runs.length);
  });

  it("folds runs whose entries interleave, and skips an entry delivered again", () => {
    const projections = new RunProjections();
    const logs = runs.map(logOf);
    const longest = Math.max(...logs.map((log) => log.length));
    for (let index = 0; index < longest; index += 1) {
      for (const log of logs) {
        const event = log[index];
        if (event === undefined) continue;
        projections.apply(event);
        // A redelivery of the same entry, and of the one before it.
        projections.apply(event);
        if (index > 0) projections.apply(log[index - 1]!);
      }
    }
    for (const log of logs) {
      expect(projections.apply(log.at(-1)!)).toStrictEqual(foldRun(log));
    }
  });

  it("does not follow a run whose first entry here is not its run-queued", () => {
    const projections = new RunProjections();
    const log = logOf(runs[0]!);
    expect(projections.apply(log[1]!)).toBeUndefined();
    expect(projections.apply(log[2]!)).toBeUndefined();
    expect(projections.size).toBe(0);
  });

  it("stops following a run at a gap in its entries", () => {
    const projections = new RunProjections();
    const log = logOf(runs[0]!);
    expect(projections.apply(log[0]!)?.seq).toBe(1);
    expect(projections.apply(log[2]!)).toBeUndefined();
    expect(projections.apply(log[3]!)).toBeUndefined();
    expect(projections.size).toBe(0);
  });

  it("forgets a run once told, and the run followed longest once beyond its capacity", () => {
    const projections = new RunProjections(2);
    const [first, second, third] = runs.slice(0, 3).map(logOf);
    projections.apply(first![0]!);
    projections.apply(second![0]!);
    projections.apply(third![0]!);
    expect(projections.size).toBe(2);
    expect(projections.apply(first![1]!)).toBeUndefined();
    expect(projections.apply(second![1]!)?.seq).toBe(2);

    projections.forget(second![0]!.runId);
    expect(projections.apply(second![2]!)).toBeUndefined();
    expect(projections.size).toBe(1);
  });
});
