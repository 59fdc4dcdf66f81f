import { describe, expect, it } from "vitest";
import { EVENT_VERSION } from "./events.js";
import { decodeStoredEvent } from "./stored-event.js";

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
});
