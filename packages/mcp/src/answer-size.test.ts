/**
 * The size rule of `wait_runs` (docs/architecture/mcp.md#sizes): 100 settled
 * runs with 50 KB outputs each — 5 MB in all — answer within
 * `ANSWER_BYTE_BUDGET` at either detail, each output cut with
 * `outputTruncated` and a `resultRef`, the page ending early (hasMore,
 * nextCursor) when the next result would pass the budget; the resource the
 * reference names returns the whole output.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ANSWER_BYTE_BUDGET, INLINE_CHARS, WAIT_PAGE_LIMITS } from "./limits.js";
import { type McpStack, startMcpStack } from "./test-support/mcp-stack.js";

const BLOB_SCHEMA = {
  type: "object",
  properties: { blob: { type: "string" } },
  required: ["blob"],
  additionalProperties: false,
};

/** A 50 KB string with quotes and newlines, which JSON escapes (and so grows). */
function blobOf(index: number): string {
  return `run ${index}: ${'"quoted" line\n'.repeat(3_600)}`.slice(0, 50_000);
}

let stack: McpStack;
let runIds: string[];

beforeAll(async () => {
  stack = await startMcpStack();
  const runs = Array.from({ length: 100 }, (_, index) => ({
    agent: "echo",
    outputSchema: BLOB_SCHEMA,
    input: { script: [{ call: [{ tool: "structured_output", args: { blob: blobOf(index) } }] }] },
  }));
  const started = await stack.call("start_runs", { runs });
  expect(started.value.succeeded).toBe(100);
  runIds = started.value.nextAction.args.runIds;
  let pending = 100;
  while (pending > 0) {
    pending = (await stack.call("wait_runs", { runIds, waitSeconds: 30, limit: 1 })).value.pending;
  }
});

afterAll(async () => {
  await stack?.stop();
});

describe("wait_runs over 100 settled runs of 50 KB outputs", () => {
  for (const [detail, limit] of [
    ["summary", WAIT_PAGE_LIMITS.max],
    ["full", 10],
  ] as const) {
    it(`pages them at detail ${detail} within the byte budget, every output cut and referenced, each run once`, async () => {
      const seen: string[] = [];
      let args: Record<string, unknown> | undefined = { runIds, limit, detail };
      let pages = 0;
      while (args !== undefined) {
        const answer = await stack.call("wait_runs", args);
        pages += 1;
        expect(answer.bytes).toBeLessThanOrEqual(ANSWER_BYTE_BUDGET);
        const { value } = answer;
        expect(value).toMatchObject({ total: 100, succeeded: 100, pending: 0 });
        expect(value.count).toBe(value.results.length);
        for (const run of value.results) {
          expect(run).toMatchObject({ ok: true, status: "succeeded", outputTruncated: true });
          expect(run.output).toBeUndefined();
          expect(run.outputPreview).toHaveLength(INLINE_CHARS[detail]);
          expect(run.resultRef).toMatchObject({
            uri: `errand://runs/${run.runId}/result`,
            contentType: "application/json",
          });
          expect(run.resultRef.sizeBytes).toBeGreaterThan(50_000);
          seen.push(run.runId);
        }
        expect(value.hasMore).toBe(value.nextCursor !== undefined);
        if (value.hasMore) {
          expect(value.nextAction).toEqual({
            tool: "wait_runs",
            args: { runIds, cursor: value.nextCursor, limit, detail },
          });
        } else {
          expect(value.nextAction).toBeUndefined();
        }
        args = value.nextAction?.args;
      }
      expect(seen).toEqual(runIds);
      // Quoted text grows as JSON escapes it twice: pages end before the limit rather than pass the budget.
      expect(pages).toBeGreaterThan(100 / limit);
    });
  }

  it("serves the whole output as the resource the reference names", async () => {
    const runId = runIds[42] as string;
    const page = await stack.call("wait_runs", { runIds: [runId] });
    const uri = page.value.results[0].resultRef.uri;
    const read = await stack.client.readResource({ uri });
    const [content] = read.contents;
    expect(content?.mimeType).toBe("application/json");
    const whole = JSON.parse(String(content && "text" in content ? content.text : ""));
    expect(whole).toMatchObject({ runId, status: "succeeded", output: { blob: blobOf(42) } });
  });
});
