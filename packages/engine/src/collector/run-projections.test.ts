import {
  EVENT_VERSION,
  foldRun,
  initialRunState,
  type RunEvent,
  type RunState,
  settleRun,
} from "@errand/core";
import { applyResultEvent } from "@errand/core/ops";
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

/** The fold of a log kept for its result, as the projections fold. */
function foldForResult(log: readonly RunEvent[]): RunState {
  return log.reduce(applyResultEvent, initialRunState(log[0]!.runId));
}

/** Every entry counts 100 in these tests. */
const SIZE = 100;

const runs = planRuns({ count: 12, shards: 2, parents: 2, seed: "projections" });

describe("RunProjections", () => {
  it("folds a run followed from its first event exactly as the fold of its log for its result, whatever its ending", () => {
    const projections = new RunProjections();
    for (const run of runs) {
      const log = logOf(run);
      let projection: RunState | undefined;
      for (const event of log) projection = projections.apply(event, SIZE);
      expect(projection).toStrictEqual(foldForResult(log));
      expect(settleRun(projection!)).toStrictEqual(settleRun(foldRun(log, run.runId)));
    }
    expect(projections.runs).toBe(runs.length);
    expect(projections.size).toBe(runs.reduce((sum, run) => sum + run.events.length * SIZE, 0));
  });

  it("folds runs whose entries interleave, and skips an entry delivered again", () => {
    const projections = new RunProjections();
    const logs = runs.map(logOf);
    const longest = Math.max(...logs.map((log) => log.length));
    for (let index = 0; index < longest; index += 1) {
      for (const log of logs) {
        const event = log[index];
        if (event === undefined) continue;
        projections.apply(event, SIZE);
        // A redelivery of the same entry, and of the one before it.
        projections.apply(event, SIZE);
        if (index > 0) projections.apply(log[index - 1]!, SIZE);
      }
    }
    for (const log of logs) {
      expect(projections.apply(log.at(-1)!, SIZE)).toStrictEqual(foldForResult(log));
    }
    expect(projections.size).toBe(logs.reduce((sum, log) => sum + log.length * SIZE, 0));
  });

  it("does not follow a run whose first entry here is not its run-queued", () => {
    const projections = new RunProjections();
    const log = logOf(runs[0]!);
    expect(projections.apply(log[1]!, SIZE)).toBeUndefined();
    expect(projections.apply(log[2]!, SIZE)).toBeUndefined();
    expect(projections.runs).toBe(0);
  });

  it("stops following a run at a gap in its entries", () => {
    const projections = new RunProjections();
    const log = logOf(runs[0]!);
    expect(projections.apply(log[0]!, SIZE)?.seq).toBe(1);
    expect(projections.apply(log[2]!, SIZE)).toBeUndefined();
    expect(projections.apply(log[3]!, SIZE)).toBeUndefined();
    expect(projections.runs).toBe(0);
    expect(projections.size).toBe(0);
  });

  it("forgets the runs least recently folded once beyond its budget, and a run once told", () => {
    const projections = new RunProjections(3 * SIZE);
    const [first, second, third] = runs.slice(0, 3).map(logOf);
    projections.apply(first![0]!, SIZE);
    projections.apply(second![0]!, SIZE);
    projections.apply(first![1]!, SIZE);
    expect(projections.runs).toBe(2);
    // A fourth entry over a budget of three: the second run, folded least recently, goes.
    expect(projections.apply(first![2]!, SIZE)?.seq).toBe(3);
    expect(projections.runs).toBe(1);
    expect(projections.apply(second![1]!, SIZE)).toBeUndefined();
    // Then the first run, now the least recently folded.
    expect(projections.apply(third![0]!, SIZE)?.seq).toBe(1);
    expect(projections.apply(first![3]!, SIZE)).toBeUndefined();
    expect(projections.size).toBe(SIZE);

    projections.forget(third![0]!.runId);
    expect(projections.apply(third![1]!, SIZE)).toBeUndefined();
    expect(projections.runs).toBe(0);
    expect(projections.size).toBe(0);
  });

  it("orders the runs by their last fold when a run folds several entries in a row", () => {
    const projections = new RunProjections(4 * SIZE);
    const [first, second] = runs.slice(0, 2).map(logOf);
    projections.apply(first![0]!, SIZE);
    projections.apply(second![0]!, SIZE);
    projections.apply(second![1]!, SIZE);
    projections.apply(first![1]!, SIZE);
    // A fifth entry over a budget of four: the second run, folded twice but before the first's last two, goes.
    expect(projections.apply(first![2]!, SIZE)?.seq).toBe(3);
    expect(projections.runs).toBe(1);
    expect(projections.size).toBe(3 * SIZE);
    expect(projections.apply(second![2]!, SIZE)).toBeUndefined();
    expect(projections.apply(first![3]!, SIZE)?.seq).toBe(4);
    expect(projections.size).toBe(4 * SIZE);
  });

  it("does not follow a run larger than the whole budget", () => {
    const projections = new RunProjections(SIZE);
    const log = logOf(runs[0]!);
    expect(projections.apply(log[0]!, 2 * SIZE)).toBeUndefined();
    expect(projections.runs).toBe(0);
    expect(projections.size).toBe(0);
  });

  it("keeps a run marked listed through its later folds, until it is forgotten", () => {
    const projections = new RunProjections();
    const [log] = runs.slice(0, 1).map(logOf);
    const runId = log![0]!.runId;
    projections.markListed(runId);
    expect(projections.isListed(runId)).toBe(false);
    projections.apply(log![0]!, SIZE);
    expect(projections.isListed(runId)).toBe(false);
    projections.markListed(runId);
    projections.apply(log![1]!, SIZE);
    expect(projections.isListed(runId)).toBe(true);
    projections.forget(runId);
    expect(projections.isListed(runId)).toBe(false);
  });
});
