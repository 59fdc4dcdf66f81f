/**
 * A job's data is told well formed without the schema's parse exactly when
 * the schema takes it, and data the quick check refuses is judged, and
 * described, by the schema.
 */
import { newRunId } from "@errand/core";
import { describe, expect, it } from "vitest";
import { isRunJobData, parseRunJobData, RunJobData } from "./job-data.js";

const RUN_ID = newRunId({
  shard: 0,
  nowMs: Date.parse("2026-12-06T10:00:00.000Z"),
  random: new Uint8Array(16),
});

/** Job data of every shape a producer, an older one or a broken one could leave. */
const CASES: readonly unknown[] = [
  { runId: RUN_ID },
  { runId: RUN_ID, queued: undefined },
  { runId: RUN_ID, queued: { at: "2026-12-06T10:00:00.000Z", data: { agent: "a", input: {} } } },
  { runId: RUN_ID, queued: { at: "2026-12-06T10:00:00.000Z", data: {} } },
  Object.assign(Object.create(null), { runId: RUN_ID }),
  { runId: "not a run id" },
  { runId: 42 },
  {},
  { runId: RUN_ID, extra: 1 },
  { runId: RUN_ID, queued: null },
  { runId: RUN_ID, queued: { at: 1, data: {} } },
  { runId: RUN_ID, queued: { at: "2026-12-06T10:00:00.000Z" } },
  { runId: RUN_ID, queued: { at: "2026-12-06T10:00:00.000Z", data: [] } },
  { runId: RUN_ID, queued: { at: "2026-12-06T10:00:00.000Z", data: null } },
  { runId: RUN_ID, queued: { at: "2026-12-06T10:00:00.000Z", data: {}, seq: 1 } },
  { runId: RUN_ID, queued: [] },
  [RUN_ID],
  null,
  RUN_ID,
  new Date(),
];

describe("a run job's data", () => {
  it.each(CASES.map((data) => [JSON.stringify(data) ?? String(data), data]))(
    "%s: the quick check agrees with the schema",
    (_name, data) => {
      expect(isRunJobData(data)).toBe(RunJobData.safeParse(data).success);
    },
  );

  it("is handed back as it is when well formed, and refused with the schema's issues when not", () => {
    const data = { runId: RUN_ID, queued: { at: "2026-12-06T10:00:00.000Z", data: { n: 1 } } };
    expect(parseRunJobData("job-1", data)).toBe(data);
    expect(() => parseRunJobData("job-2", { runId: RUN_ID, queued: { at: 1, data: {} } })).toThrow(
      /job job-2 carries malformed data \(queued\.at: .*\)/,
    );
  });
});
