import { describe, expect, it } from "vitest";
import { assessMemory, NEAR_MAXMEMORY } from "./memory-checks.js";

const MIB = 1024 * 1024;

describe("assessMemory", () => {
  it("passes well under maxmemory, and without one", () => {
    expect(assessMemory({ used: 50 * MIB, notCounted: 0, maxmemory: 100 * MIB })).toMatchObject({
      ok: true,
      detail: "50.00 MiB used of maxmemory 100.00 MiB (50%)",
    });
    expect(assessMemory({ used: 3 * MIB, notCounted: 0, maxmemory: 0 })).toMatchObject({
      ok: true,
      detail: expect.stringContaining("no maxmemory"),
    });
  });

  it(`is a problem from ${NEAR_MAXMEMORY * 100}% of maxmemory on, and full at it`, () => {
    expect(assessMemory({ used: 92 * MIB, notCounted: 0, maxmemory: 100 * MIB })).toMatchObject({
      ok: false,
      detail: expect.stringContaining("(92%): near the limit"),
      fix: expect.stringContaining("CONFIG SET maxmemory"),
    });
    expect(assessMemory({ used: 101 * MIB, notCounted: 0, maxmemory: 100 * MIB })).toMatchObject({
      ok: false,
      detail: expect.stringContaining("Redis is full and refuses every write"),
    });
  });

  it("leaves out what the limit does not count (replication and AOF buffers), as Redis does", () => {
    const check = assessMemory({ used: 95 * MIB, notCounted: 20 * MIB, maxmemory: 100 * MIB });
    expect(check).toMatchObject({ ok: true, detail: expect.stringContaining("(75%)") });
  });
});
