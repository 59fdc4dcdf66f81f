/**
 * The heap meter counts what was allocated across garbage collections, not
 * the heap's growth: 64 MiB of short-lived arrays, several times the young
 * generation, are all counted although the heap never holds them at once.
 */
import { describe, expect, it } from "vitest";
import { startHeapMeter } from "./heap-meter.js";

/** Arrays allocated, and the slots of each: 126 slots of 8 bytes and the headers make at least 1 KiB. */
const ARRAYS = 64 * 1024;
const SLOTS = 126;

/**
 * Allocates {@link ARRAYS} arrays of {@link SLOTS} slots, each dropped at the
 * next (kept that long, so that no compiler optimises it away); returns
 * their slots' sum.
 */
function allocateArrays(): number {
  let slots = 0;
  let latest: number[] = [];
  for (let index = 0; index < ARRAYS; index += 1) {
    latest = new Array<number>(SLOTS);
    latest[0] = index;
    slots += latest.length;
  }
  return slots + latest.length - SLOTS;
}

describe("startHeapMeter", () => {
  it("counts the bytes allocated across collections, once", () => {
    const meter = startHeapMeter();
    const slots = allocateArrays();
    const allocated = meter.stop();
    expect(slots).toBe(ARRAYS * SLOTS);
    expect(allocated).toBeGreaterThanOrEqual(ARRAYS * 1024);
    // The loop allocates nothing else.
    expect(allocated).toBeLessThan(2 * ARRAYS * 1024);
    expect(meter.stop()).toBe(allocated);
  });
});
