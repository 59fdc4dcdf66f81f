/**
 * The built-in scorers and the field-level diff, on results made by hand:
 * what each scores equal, changed, failed and schema-breaking answers.
 */
import type { RunResult } from "@errand/core";
import { describe, expect, it } from "vitest";
import { canonicalJson, jsonFieldChanges } from "./json-diff.js";
import { jsonFieldDiff, outputEqual, outputSchemaValid, textSimilarity } from "./scorers.js";

function result(fields: Partial<RunResult>): RunResult {
  return {
    runId: "R1",
    agent: "a",
    status: "succeeded",
    rootRunId: "R1",
    attempts: 1,
    steps: 1,
    usage: { inputTokens: 1, outputTokens: 1 },
    createdAt: "2026-12-01T00:00:00.000Z",
    ...fields,
  };
}

const schema = {
  type: "object",
  properties: { answer: { type: "string" }, n: { type: "number" } },
  required: ["answer", "n"],
  additionalProperties: false,
};
const input = { runId: "R1", agent: "a", input: null, outputSchema: schema, metadata: {} };

describe("the field-level diff", () => {
  it("names each changed leaf by its path, with the value on each side", () => {
    expect(
      jsonFieldChanges(
        { a: 1, b: { c: [1, 2], "d e": "x" }, gone: true },
        { a: 1, b: { c: [1, 3, 4], "d e": "y" }, added: null },
      ),
    ).toEqual([
      { path: "$.added", candidate: null },
      { path: "$.b.c[1]", original: 2, candidate: 3 },
      { path: "$.b.c[2]", candidate: 4 },
      { path: '$.b["d e"]', original: "x", candidate: "y" },
      { path: "$.gone", original: true },
    ]);
    expect(jsonFieldChanges({ a: [1] }, { a: [1] })).toEqual([]);
  });

  it("compares objects whatever the order of their keys", () => {
    expect(canonicalJson({ b: 1, a: { d: 2, c: 3 } })).toBe(
      canonicalJson({ a: { c: 3, d: 2 }, b: 1 }),
    );
  });
});

describe("the built-in scorers", () => {
  const original = result({ output: { answer: "yes", n: 1 } });

  it("score an equal answer 1 on every count", async () => {
    const same = result({ output: { n: 1, answer: "yes" } });
    for (const scorer of [outputSchemaValid(), outputEqual(), jsonFieldDiff(), textSimilarity()]) {
      expect((await scorer.score(original, same, input)).score, scorer.name).toBe(1);
    }
  });

  it("score a changed answer by how much changed", async () => {
    const changed = result({ output: { answer: "no", n: 1 } });
    expect(await outputEqual().score(original, changed, input)).toEqual({
      score: 0,
      note: "the output differs",
    });
    expect(await jsonFieldDiff().score(original, changed, input)).toEqual({
      score: 0.5,
      note: "1 field(s) changed: $.answer",
    });
    const similarity = (await textSimilarity().score(original, changed, input)).score;
    expect(similarity).toBeGreaterThan(0);
    expect(similarity).toBeLessThan(1);
  });

  it("score 0 for an output outside the schema, or a candidate that failed", async () => {
    const invalid = result({ output: { answer: 3, n: 1 } });
    expect((await outputSchemaValid().score(original, invalid, input)).score).toBe(0);
    const failed = result({
      status: "failed",
      error: { code: "max_steps", message: "m", retryable: false },
    });
    expect(await outputSchemaValid().score(original, failed, input)).toEqual({
      score: 0,
      note: "the candidate failed",
    });
    expect(await outputEqual().score(original, failed, input)).toEqual({
      score: 0,
      note: "succeeded → failed",
    });
  });
});
