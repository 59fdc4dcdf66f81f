/**
 * Deadlines on one timer: each is called back once its time passed, in the
 * order of their times whatever the order they were scheduled in, never
 * once cancelled; one scheduled before the armed time is not kept waiting
 * for it.
 */
import { describe, expect, it } from "vitest";
import { scheduleDeadline } from "./shared-deadlines.js";

/** Resolves once `ms` passed, on a timer of its own. */
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("scheduleDeadline", () => {
  it("calls back each deadline due, in the order of their times, and none cancelled", async () => {
    const called: string[] = [];
    const done = new Promise<void>((resolve) => {
      scheduleDeadline(120, () => {
        called.push("last");
        resolve();
      });
    });
    scheduleDeadline(60, () => called.push("second"));
    const cancelled = scheduleDeadline(40, () => called.push("cancelled"));
    scheduleDeadline(20, () => called.push("first"));
    cancelled.cancel();
    await done;
    expect(called).toEqual(["first", "second", "last"]);
  });

  it("calls back a short deadline scheduled after a long one before the long one's time", async () => {
    const called: string[] = [];
    const long = scheduleDeadline(60_000, () => called.push("long"));
    await new Promise<void>((resolve) => {
      scheduleDeadline(10, () => {
        called.push("short");
        resolve();
      });
    });
    long.cancel();
    expect(called).toEqual(["short"]);
  });

  it("calls nothing back for a deadline cancelled, even once its time passed", async () => {
    let calls = 0;
    const deadline = scheduleDeadline(10, () => {
      calls += 1;
    });
    deadline.cancel();
    // Cancelling twice changes nothing.
    deadline.cancel();
    await pause(50);
    expect(calls).toBe(0);
  });

  it("calls back a deadline already due before a later one scheduled while the loop was busy", async () => {
    const called: string[] = [];
    const due = new Promise<void>((resolve) => {
      scheduleDeadline(10, () => {
        called.push("due");
        resolve();
      });
    });
    // The loop is held past the armed time, so the timer has not fired when the next is scheduled.
    const heldUntil = performance.now() + 50;
    while (performance.now() < heldUntil) {}
    const later = scheduleDeadline(120_000, () => called.push("later"));
    await due;
    later.cancel();
    expect(called).toEqual(["due"]);
  });

  it("keeps the order of many deadlines cancelled and scheduled in between", async () => {
    const called: number[] = [];
    const delays = [70, 10, 50, 30, 90, 20, 80, 40, 60];
    const deadlines = delays.map((delay) => scheduleDeadline(delay, () => called.push(delay)));
    deadlines[2]!.cancel(); // 50
    deadlines[5]!.cancel(); // 20
    await new Promise<void>((resolve) => scheduleDeadline(100, resolve));
    expect(called).toEqual([10, 30, 40, 60, 70, 80, 90]);
  });
});
