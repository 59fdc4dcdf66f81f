import { describe, expect, it } from "vitest";
import { EVENT_VERSION, EventAt } from "./events.js";
import { checkStoredEvent, decodeStoredEvent } from "./stored-event.js";

const at = "2026-01-01T00:00:00.000Z";

describe("decodeStoredEvent", () => {
  it("decodes a stored event as the log holds it, keeping its data as stored", () => {
    const data = { attempt: 1, workerId: "w-1", addedLater: "kept" };
    const decoded = decodeStoredEvent("run-1", {
      seq: "2",
      type: "run-started",
      at,
      data: JSON.stringify(data),
    });
    expect(decoded).toEqual({
      ok: true,
      event: { v: EVENT_VERSION, runId: "run-1", seq: 2, type: "run-started", at, data },
    });
  });

  it("refuses fields that are not an event's, saying which", () => {
    const valid = { seq: "1", type: "finished", at, data: "{}" };
    const broken = [
      [{ ...valid, seq: undefined }, /^seq/],
      [{ ...valid, seq: "0" }, /^seq/],
      [{ ...valid, seq: "1.5" }, /^seq/],
      [{ ...valid, type: "teleported" }, /^type/],
      [{ ...valid, type: "toString" }, /^type/],
      [{ ...valid, at: undefined }, /^at/],
      [{ ...valid, at: "" }, /^at/],
      [{ ...valid, at: "tomorrow" }, /^at/],
      [{ ...valid, at: "2026-01-01" }, /^at/],
      [{ ...valid, data: undefined }, /^data/],
      [{ ...valid, data: "{not json" }, /^data/],
      [{ ...valid, data: "[]" }, /^data/],
      [{ ...valid, data: "null" }, /^data/],
    ] as const;
    for (const [fields, why] of broken) {
      const decoded = decodeStoredEvent("run-1", fields);
      expect(decoded.ok).toBe(false);
      expect(decoded.ok ? "" : decoded.error).toMatch(why);
    }
  });

  it("does not validate the data again: data its type's schema refuses is kept as stored", () => {
    const decoded = decodeStoredEvent("run-1", {
      seq: "3",
      type: "run-started",
      at,
      data: JSON.stringify({ attempt: "first" }),
    });
    expect(decoded).toEqual({
      ok: true,
      event: {
        v: EVENT_VERSION,
        runId: "run-1",
        seq: 3,
        type: "run-started",
        at,
        data: { attempt: "first" },
      },
    });
  });

  it("reads every `at` the append's schema accepts", () => {
    const candidates = [
      at,
      "2026-01-01T00:00:00Z",
      "2026-01-01T00:00Z",
      "2026-01-01T00:00:00.123456789Z",
      "2026-01-01T01:00:00+01:00",
      "2026-01-01T01:00:00-0130",
      "2026-01-01T01:00:00+01",
      "2026-01-01 00:00:00Z",
      "2026-01-01T00:00:00",
      "20260101T000000Z",
    ];
    const accepted = candidates.filter((candidate) => EventAt.safeParse(candidate).success);
    expect(accepted.length).toBeGreaterThanOrEqual(4);
    for (const candidate of accepted) {
      const decoded = decodeStoredEvent("run-1", {
        seq: "1",
        type: "finished",
        at: candidate,
        data: "{}",
      });
      expect(decoded.ok, candidate).toBe(true);
    }
  });
});

describe("checkStoredEvent", () => {
  it("checks an event whose parts are parsed already, as a shard entry holds them", () => {
    const data = { attempt: 1, workerId: "w-1" };
    expect(checkStoredEvent("run-1", { seq: 4, type: "run-started", at, data })).toEqual({
      ok: true,
      event: { v: EVENT_VERSION, runId: "run-1", seq: 4, type: "run-started", at, data },
    });
    const valid = { seq: 1, type: "finished", at, data: {} };
    const broken = [
      [{ ...valid, seq: Number.NaN }, /^seq/],
      [{ ...valid, seq: 0 }, /^seq/],
      [{ ...valid, type: 7 }, /^type/],
      [{ ...valid, type: undefined }, /^type/],
      [{ ...valid, at: 1_767_225_600_000 }, /^at/],
      [{ ...valid, data: "{}" }, /^data/],
      [{ ...valid, data: [] }, /^data/],
      [{ ...valid, data: null }, /^data/],
    ] as const;
    for (const [parts, why] of broken) {
      const checked = checkStoredEvent("run-1", parts);
      expect(checked.ok).toBe(false);
      expect(checked.ok ? "" : checked.error).toMatch(why);
    }
  });
});
