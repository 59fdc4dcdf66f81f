import { createHash } from "node:crypto";
import { REDACTED } from "@errand/core";
import { INLINE_VALUE_LIMIT_BYTES, TOOL_TEXT_LIMIT_CHARS } from "@errand/core/ops";
import { describe, expect, it } from "vitest";
import { createMemoryBlobStore } from "./blobs.js";
import { failedToolResult, shapeToolResult, toolResultContent } from "./tool-results.js";

const runId = "R01JTEST00000000000000000000";
const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

describe("shapeToolResult", () => {
  it("keeps a small JSON value inline, as plain JSON", async () => {
    const shaped = await shapeToolResult({ at: new Date(0), n: 1 }, runId, createMemoryBlobStore());
    const plain = { at: "1970-01-01T00:00:00.000Z", n: 1 };
    expect(shaped).toEqual({
      ok: true,
      result: plain,
      bytes: JSON.stringify(plain).length,
      truncated: false,
    });
  });

  it("keeps an empty result apart from a failed one", async () => {
    const blobs = createMemoryBlobStore();
    expect(await shapeToolResult(undefined, runId, blobs)).toEqual({
      ok: true,
      result: null,
      bytes: 4,
      truncated: false,
    });
    expect(await shapeToolResult("", runId, blobs)).toMatchObject({ ok: true, result: "" });
  });

  it("stores a JSON value over the inline limit as a blob and keeps a preview", async () => {
    const blobs = createMemoryBlobStore();
    const value = { rows: Array.from({ length: 4000 }, (_, i) => ({ i, word: "tide" })) };
    const json = JSON.stringify(value);
    expect(json.length).toBeGreaterThan(INLINE_VALUE_LIMIT_BYTES);
    const shaped = await shapeToolResult(value, runId, blobs);
    expect(shaped).toEqual({
      ok: true,
      result: json.slice(0, TOOL_TEXT_LIMIT_CHARS),
      bytes: json.length,
      truncated: true,
      ref: {
        ref: `resource://runs/${runId}/blobs/0`,
        contentType: "application/json",
        sizeBytes: json.length,
        sha256: sha256(json),
      },
    });
    expect(await blobs.get(shaped.ref!)).toEqual({ value: json, contentType: "application/json" });
  });

  it("cuts text longer than the tool text limit, keeping the whole text in a blob", async () => {
    const blobs = createMemoryBlobStore();
    const text = "é".repeat(TOOL_TEXT_LIMIT_CHARS + 10);
    const shaped = await shapeToolResult(text, runId, blobs);
    expect(shaped).toMatchObject({
      ok: true,
      result: "é".repeat(TOOL_TEXT_LIMIT_CHARS),
      bytes: 2 * text.length,
      truncated: true,
      ref: { contentType: "text/plain; charset=utf-8", sizeBytes: 2 * text.length },
    });
    expect((await blobs.get(shaped.ref!.ref))?.value).toBe(text);
  });

  it("redacts a value before cutting its preview, and keeps the value whole in the blob", async () => {
    const blobs = createMemoryBlobStore();
    const value = { apiKey: "sk-tool-777", blob: "b".repeat(44_000) };
    const shaped = await shapeToolResult(value, runId, blobs);
    expect(shaped).toMatchObject({ ok: true, truncated: true });
    expect(shaped.result).toBe(
      `{"apiKey":"${REDACTED}","blob":"${"b".repeat(44_000)}`.slice(0, TOOL_TEXT_LIMIT_CHARS),
    );
    expect((await blobs.get(shaped.ref!.ref))?.value).toBe(JSON.stringify(value));
  });

  it("leaves no part of a secret the cut would have split", async () => {
    const prefix = `{"padding":"`;
    const padding = "p".repeat(TOOL_TEXT_LIMIT_CHARS - prefix.length - `","apiKey":"sk-to`.length);
    const text = JSON.stringify({ padding, apiKey: "sk-tool-777" });
    expect(text.slice(0, TOOL_TEXT_LIMIT_CHARS).endsWith("sk-to")).toBe(true);
    const shaped = await shapeToolResult(text, runId, createMemoryBlobStore());
    expect(shaped.result).not.toContain("sk-to");
    expect(shaped.result).toBe(
      JSON.stringify({ padding, apiKey: REDACTED }).slice(0, TOOL_TEXT_LIMIT_CHARS),
    );
  });

  it("fails a call whose result cannot be JSON", async () => {
    const shaped = await shapeToolResult({ n: 1n }, runId, createMemoryBlobStore());
    expect(shaped.ok).toBe(false);
    expect(shaped.error).toMatch(/^the tool returned a value that is not JSON: /);
  });
});

describe("failedToolResult", () => {
  it("redacts a secret in the error message before cutting it", () => {
    const message = `${"x".repeat(TOOL_TEXT_LIMIT_CHARS - 20)} password=hunter2-and-more`;
    expect(failedToolResult(message).error).toBe(
      `${"x".repeat(TOOL_TEXT_LIMIT_CHARS - 20)} password=${REDACTED}`.slice(
        0,
        TOOL_TEXT_LIMIT_CHARS,
      ),
    );
  });

  it("cuts a long error message to the tool text limit", () => {
    const message = "x".repeat(TOOL_TEXT_LIMIT_CHARS + 1);
    expect(failedToolResult(message)).toEqual({
      ok: false,
      error: "x".repeat(TOOL_TEXT_LIMIT_CHARS),
      bytes: message.length,
      truncated: true,
    });
  });
});

describe("toolResultContent", () => {
  it("shows text as it is, other values as JSON, and says where a truncated value is", () => {
    expect(toolResultContent({ kind: "result", ok: true, result: "plain", truncated: false })).toBe(
      "plain",
    );
    expect(toolResultContent({ kind: "result", ok: true, result: [1], truncated: false })).toBe(
      "[1]",
    );
    const ref = {
      ref: `resource://runs/${runId}/blobs/3`,
      contentType: "application/json",
      sizeBytes: 40000,
      sha256: sha256("x"),
    };
    expect(
      toolResultContent({ kind: "result", ok: true, result: "[{", truncated: true, ref }),
    ).toBe(
      `[{\n[truncated: the full value (40000 bytes, application/json) is stored as resource://runs/${runId}/blobs/3]`,
    );
  });
});

describe("createMemoryBlobStore", () => {
  it("numbers each run's blobs from 0 and returns undefined for an unknown reference", async () => {
    const blobs = createMemoryBlobStore();
    const a0 = await blobs.put("RA", "one", "text/plain");
    const a1 = await blobs.put("RA", "two", "text/plain");
    const b0 = await blobs.put("RB", "three", "text/plain");
    expect([a0.ref, a1.ref, b0.ref]).toEqual([
      "resource://runs/RA/blobs/0",
      "resource://runs/RA/blobs/1",
      "resource://runs/RB/blobs/0",
    ]);
    expect(await blobs.get(a1)).toEqual({ value: "two", contentType: "text/plain" });
    expect(await blobs.get("resource://runs/RA/blobs/9")).toBeUndefined();
  });
});
