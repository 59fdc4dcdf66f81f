import { isErrandError } from "@errand/core";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_LOCK_DURATION_MS,
  DEFAULT_MAX_STALLED_COUNT,
  DEFAULT_STALLED_INTERVAL_MS,
  resolveJobLocks,
} from "./job-locks.js";

describe("resolveJobLocks", () => {
  it("defaults each setting: a lock well under the old 30 s, checked more often than it lasts", () => {
    expect(resolveJobLocks({})).toEqual({
      lockDuration: DEFAULT_LOCK_DURATION_MS,
      stalledInterval: DEFAULT_STALLED_INTERVAL_MS,
      maxStalledCount: DEFAULT_MAX_STALLED_COUNT,
    });
    expect(DEFAULT_LOCK_DURATION_MS + DEFAULT_STALLED_INTERVAL_MS).toBeLessThan(10_000);
    expect(DEFAULT_MAX_STALLED_COUNT).toBeGreaterThan(1); // BullMQ's 1 failed a run at its second lost worker
    expect(resolveJobLocks({ lockDuration: 60_000, maxStalledCount: 0 })).toMatchObject({
      lockDuration: 60_000,
      maxStalledCount: 0,
    });
  });

  it.each([{ lockDuration: 0 }, { stalledInterval: 2.5 }, { maxStalledCount: -1 }])(
    "refuses %j as invalid_spec",
    (settings) => {
      let thrown: unknown;
      try {
        resolveJobLocks(settings);
      } catch (error) {
        thrown = error;
      }
      expect(isErrandError(thrown, "invalid_spec")).toBe(true);
    },
  );
});
