import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Batch, BatchResult, batch } from "./batch.js";

const Fired = z.object({ index: z.number().int(), runId: z.string().optional() });

describe("batch", () => {
  it("counts successes and failures and keeps every result, in order", () => {
    const results: BatchResult<{ index: number; runId?: string }>[] = [
      { index: 0, ok: true, runId: "R1" },
      {
        index: 1,
        ok: false,
        error: { code: "unknown_agent", message: "no agent named x" },
        retryable: false,
      },
      { index: 2, ok: true, runId: "R2" },
    ];
    expect(batch(results)).toStrictEqual({ total: 3, succeeded: 2, failed: 1, results });
  });

  it("counts an empty batch as zeros", () => {
    expect(batch([])).toStrictEqual({ total: 0, succeeded: 0, failed: 0, results: [] });
  });

  it("always has succeeded + failed = total", () => {
    fc.assert(
      fc.property(fc.array(fc.boolean()), (oks) => {
        const counted = batch(
          oks.map((ok) => (ok ? { ok } : { ok, error: { code: "internal", message: "x" } })),
        );
        expect(counted.succeeded + counted.failed).toBe(counted.total);
        expect(counted.total).toBe(oks.length);
        expect(counted.succeeded).toBe(oks.filter(Boolean).length);
      }),
    );
  });
});

describe("Batch schema", () => {
  const FiredBatch = Batch(Fired);

  it("accepts what batch() builds", () => {
    const built = batch([
      { index: 0, ok: true, runId: "R1" },
      {
        index: 1,
        ok: false,
        error: { code: "input_too_large", message: "too big" },
        retryable: false,
      },
    ]);
    expect(FiredBatch.parse(built)).toStrictEqual(built);
  });

  it("refuses counts that do not match the results", () => {
    const built = batch([{ index: 0, ok: true }]);
    expect(FiredBatch.safeParse({ ...built, failed: 1 }).success).toBe(false);
    expect(FiredBatch.safeParse({ ...built, total: 2 }).success).toBe(false);
  });

  it("refuses a failure without an error and a success with one", () => {
    const Result = BatchResult(Fired);
    expect(Result.safeParse({ index: 0, ok: false }).success).toBe(false);
    expect(
      Result.safeParse({ index: 0, ok: true, error: { code: "x", message: "y" } }).success,
    ).toBe(false);
    expect(Result.safeParse({ index: 0, ok: true }).success).toBe(true);
  });
});
