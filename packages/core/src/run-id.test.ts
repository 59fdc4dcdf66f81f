import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isErrandError } from "./errors.js";
import {
  createdAtOfRunId,
  isRunId,
  MAX_RUN_ID_TIME_MS,
  MAX_SHARDS,
  newRunId,
  RUN_ID_LENGTH,
  RUN_ID_RANDOM_BYTES,
  shardOfRunId,
} from "./run-id.js";

const zeros = new Uint8Array(RUN_ID_RANDOM_BYTES);

const shardArb = fc.integer({ min: 0, max: MAX_SHARDS - 1 });
const timeArb = fc.integer({ min: 0, max: MAX_RUN_ID_TIME_MS });
const randomArb = fc.uint8Array({ minLength: RUN_ID_RANDOM_BYTES, maxLength: 16 });
const idInputArb = fc.record({ shard: shardArb, nowMs: timeArb, random: randomArb });

function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("newRunId", () => {
  it("writes the marker, the time, the shard and the random bits at fixed places", () => {
    expect(newRunId({ shard: 0, nowMs: 0, random: zeros })).toBe(`R${"0".repeat(28)}`);
    // time 33 = 1·32 + 1, shard 1023 = 31·32 + 31, first random bits 00001 then zeros
    const random = new Uint8Array(RUN_ID_RANDOM_BYTES);
    random[0] = 0b0000_1000;
    expect(newRunId({ shard: MAX_SHARDS - 1, nowMs: 33, random })).toBe(
      `R${"0".repeat(8)}11ZZ1${"0".repeat(15)}`,
    );
    expect(newRunId({ shard: 5, nowMs: 0, random: new Uint8Array(10).fill(255) })).toBe(
      `R${"0".repeat(10)}05${"Z".repeat(16)}`,
    );
  });

  it("supports at least 1,024 shards", () => {
    expect(MAX_SHARDS).toBeGreaterThanOrEqual(1024);
    expect(shardOfRunId(newRunId({ shard: 1023, nowMs: 1, random: zeros }))).toBe(1023);
  });

  it("refuses a shard, time or randomness it cannot encode", () => {
    const cases = [
      { shard: MAX_SHARDS, nowMs: 0, random: zeros },
      { shard: -1, nowMs: 0, random: zeros },
      { shard: 1.5, nowMs: 0, random: zeros },
      { shard: 0, nowMs: -1, random: zeros },
      { shard: 0, nowMs: MAX_RUN_ID_TIME_MS + 1, random: zeros },
      { shard: 0, nowMs: 0, random: new Uint8Array(RUN_ID_RANDOM_BYTES - 1) },
    ];
    for (const input of cases) {
      expect(
        isErrandError(
          thrownBy(() => newRunId(input)),
          "invalid_spec",
        ),
      ).toBe(true);
    }
  });

  it("sorts ids in the order of their creation times, whatever their shard and randomness", () => {
    fc.assert(
      fc.property(idInputArb, idInputArb, (a, b) => {
        fc.pre(a.nowMs !== b.nowMs);
        const [earlier, later] = a.nowMs < b.nowMs ? [a, b] : [b, a];
        expect(newRunId(earlier) < newRunId(later)).toBe(true);
      }),
    );
  });

  it("keeps a list of ids made in time order sorted", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(timeArb, { minLength: 2, maxLength: 30 }),
        shardArb,
        (times, shard) => {
          const inTimeOrder = [...times]
            .sort((x, y) => x - y)
            .map((nowMs) => newRunId({ shard, nowMs, random: zeros }));
          expect([...inTimeOrder].sort()).toEqual(inTimeOrder);
        },
      ),
    );
  });

  it("round-trips the shard and the time; is URL-safe, never all digits, never has ':'", () => {
    fc.assert(
      fc.property(idInputArb, (input) => {
        const id = newRunId(input);
        expect(id).toHaveLength(RUN_ID_LENGTH);
        expect(isRunId(id)).toBe(true);
        expect(shardOfRunId(id)).toBe(input.shard);
        expect(createdAtOfRunId(id)).toBe(input.nowMs);
        expect(id).toMatch(/^[A-Za-z0-9_-]+$/);
        expect(id).not.toContain(":");
        expect(id).not.toMatch(/^\d+$/);
        expect(encodeURIComponent(id)).toBe(id);
      }),
    );
  });
});

describe("isRunId and shardOfRunId", () => {
  const valid = newRunId({ shard: 7, nowMs: 1_700_000_000_000, random: zeros });

  it("accept only the canonical form", () => {
    expect(isRunId(valid)).toBe(true);
    const malformed = [
      "",
      "1234567890123456789012345678",
      valid.toLowerCase(),
      valid.slice(1),
      `${valid}0`,
      `X${valid.slice(1)}`,
      `${valid.slice(0, -1)}U`,
      `${valid.slice(0, -1)}:`,
      42,
      undefined,
    ];
    for (const value of malformed) expect(isRunId(value)).toBe(false);
  });

  it("throws invalid_spec for a malformed id", () => {
    for (const value of [
      "",
      "run-1",
      valid.toLowerCase(),
      `${valid.slice(0, 20)}I${valid.slice(21)}`,
    ]) {
      expect(
        isErrandError(
          thrownBy(() => shardOfRunId(value)),
          "invalid_spec",
        ),
      ).toBe(true);
      expect(
        isErrandError(
          thrownBy(() => createdAtOfRunId(value)),
          "invalid_spec",
        ),
      ).toBe(true);
    }
  });
});
