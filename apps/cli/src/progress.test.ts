import type { RunResult } from "@errand/core";
import { describe, expect, it } from "vitest";
import { createProgress } from "./progress.js";

function result(runId: string, status: RunResult["status"], code?: string): RunResult {
  return {
    runId,
    agent: "a",
    status,
    ...(code === undefined ? {} : { error: { code, message: code, retryable: false } }),
    rootRunId: runId,
    attempts: 1,
    steps: 1,
    usage: { inputTokens: 0, outputTokens: 0 },
    createdAt: "2026-01-01T00:00:00.000Z",
  };
}

function stream(isTTY: boolean) {
  const writes: string[] = [];
  return { writes, isTTY, write: (text: string) => writes.push(text) };
}

describe("createProgress", () => {
  it("writes one line per settled run when not on a terminal", () => {
    const out = stream(false);
    const progress = createProgress({ total: 2, stream: out, silent: false });
    progress.settled(result("R1", "succeeded"));
    progress.settled(result("R2", "failed", "max_steps"), "#2 Lima");
    progress.finish();
    expect(out.writes).toEqual(["1/2 R1 succeeded\n", "2/2 #2 Lima failed (max_steps)\n"]);
  });

  it("redraws one line with the bar and the counts on a terminal", () => {
    const out = stream(true);
    const progress = createProgress({ total: 4, stream: out, silent: false });
    progress.settled(result("R1", "cancelled", "cancelled"));
    progress.finish();
    expect(out.writes[0]).toMatch(/^\[░{24}\] 0\/4 settled/);
    expect(out.writes[1]).toBe(
      `\r\x1b[2K[${"█".repeat(6)}${"░".repeat(18)}] 1/4 settled · 0 succeeded · 0 failed · 1 cancelled`,
    );
    expect(out.writes.at(-1)).toBe("\n");
  });

  it("writes nothing when silent", () => {
    const out = stream(true);
    const progress = createProgress({ total: 1, stream: out, silent: true });
    progress.settled(result("R1", "succeeded"));
    progress.finish();
    expect(out.writes).toEqual([]);
  });
});
