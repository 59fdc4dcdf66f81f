import { describe, expect, it } from "vitest";
import { startDeadline } from "./run-deadline.js";

const clock = (ms: number) => () => new Date(ms);

describe("startDeadline", () => {
  it("without a timeout is the caller's own signal and never expires", () => {
    const caller = new AbortController();
    const deadline = startDeadline({}, undefined, clock(0), caller.signal);
    expect(deadline.signal).toBe(caller.signal);
    expect(deadline.expired()).toBe(false);
  });

  it("fires with the caller's reason when the caller aborts first, and that is not a timeout", () => {
    const caller = new AbortController();
    const deadline = startDeadline({}, 60_000, clock(0), caller.signal);
    expect(deadline.signal.aborted).toBe(false);
    caller.abort(new Error("cancel requested"));
    expect(deadline.signal.aborted).toBe(true);
    expect((deadline.signal.reason as Error).message).toBe("cancel requested");
    expect(deadline.expired()).toBe(false);
    deadline.dispose();
  });

  it("starts aborted for a caller's signal that already fired", () => {
    const caller = new AbortController();
    caller.abort(new Error("gone"));
    const deadline = startDeadline({}, 60_000, clock(0), caller.signal);
    expect(deadline.signal.aborted).toBe(true);
    deadline.dispose();
  });

  it("fires and expires once the timeout, counted from the first start, has passed", async () => {
    const caller = new AbortController();
    const startedAt = new Date(1_000).toISOString();
    const passed = startDeadline({ startedAt }, 500, clock(1_600), caller.signal);
    expect(passed.expired()).toBe(true);
    expect(passed.signal.aborted).toBe(true);
    expect((passed.signal.reason as Error).message).toContain("timeout of 500 ms");

    const soon = startDeadline({}, 20, () => new Date(), caller.signal);
    expect(soon.expired()).toBe(false);
    await new Promise((resolve) => soon.signal.addEventListener("abort", resolve, { once: true }));
    expect(soon.expired()).toBe(true);
    expect(caller.signal.aborted).toBe(false);
  });

  it("does not count the time the run spent parked", () => {
    const caller = new AbortController();
    const startedAt = new Date(1_000).toISOString();
    const parked = startDeadline({ startedAt, parkedMs: 3_000 }, 500, clock(4_400), caller.signal);
    expect(parked.expired()).toBe(false);
    expect(parked.signal.aborted).toBe(false);
    parked.dispose();
    const worked = startDeadline({ startedAt, parkedMs: 3_000 }, 500, clock(4_500), caller.signal);
    expect(worked.expired()).toBe(true);
    worked.dispose();
  });

  it("lets go of the caller's signal once disposed", () => {
    const caller = new AbortController();
    const deadline = startDeadline({}, 60_000, clock(0), caller.signal);
    deadline.dispose();
    caller.abort(new Error("late"));
    expect(deadline.signal.aborted).toBe(false);
  });
});
