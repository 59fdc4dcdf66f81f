import { newRunId, type RunResult } from "@errand/core";
import { describe, expect, it } from "vitest";
import { parseStoredResult, storedResultJson } from "./stored-results.js";

const random = new Uint8Array(10);
const root = newRunId({ shard: 1, nowMs: 1_000, random });
const child = newRunId({ shard: 2, nowMs: 2_000, random });

function resultOf(runId: string, rootRunId: string): RunResult {
  return {
    runId,
    agent: "researcher",
    status: "succeeded",
    output: { answer: "ok" },
    rootRunId,
    attempts: 1,
    steps: 1,
    usage: { inputTokens: 61, outputTokens: 19 },
    createdAt: "2026-12-02T05:49:33.284Z",
    startedAt: "2026-12-02T05:49:34.278Z",
    settledAt: "2026-12-02T05:49:34.281Z",
  };
}

describe("storedResultJson and parseStoredResult", () => {
  it("store a root run's result without its runId and own root, and read it whole", () => {
    const result = resultOf(root, root);
    const text = storedResultJson(result);
    expect(JSON.parse(text)).not.toHaveProperty("runId");
    expect(JSON.parse(text)).not.toHaveProperty("rootRunId");
    expect(text.length).toBe(JSON.stringify(result).length - 2 * `"runId":"${root}",`.length - 4);
    expect(parseStoredResult(root, text)).toEqual(result);
  });

  it("keep a child's root, which another run's id is", () => {
    const result = resultOf(child, root);
    const text = storedResultJson(result);
    expect(JSON.parse(text)).toMatchObject({ rootRunId: root });
    expect(JSON.parse(text)).not.toHaveProperty("runId");
    expect(parseStoredResult(child, text)).toEqual(result);
  });

  it("read a result stored whole, as the collector stored them before", () => {
    const result = resultOf(root, root);
    expect(parseStoredResult(root, JSON.stringify(result))).toEqual(result);
  });

  it("refuse text the collector could not have written", () => {
    for (const text of ["[]", "null", "{", JSON.stringify({ agent: "researcher" })]) {
      expect(() => parseStoredResult(root, text), text).toThrow(/not a RunResult/);
    }
  });
});
