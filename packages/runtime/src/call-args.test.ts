/**
 * A call's arguments over the inline limits are logged as a blob and a
 * redacted preview, in `model-responded` and `tool-called` alike; the tool
 * runs on the whole arguments, and so does a call resumed from such a log.
 */
import type { NewEvent, RunEvent, Script } from "@errand/core";
import { CALL_ARGS_PREVIEW_CHARS, INLINE_VALUE_LIMIT_BYTES, truncateText } from "@errand/core/ops";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createMemoryBlobStore } from "./blobs.js";
import { wholeCall } from "./call-args.js";
import { createMemorySink } from "./memory-sink.js";
import { runSteps } from "./run-steps.js";
import { scriptedAgent } from "./test-support/agents.js";
import { play } from "./test-support/play.js";
import { startRun } from "./test-support/runs.js";
import { defineTool } from "./tool.js";
import { redactedText } from "./tool-results.js";

const SECRET = "sk-live-0123456789abcdef0123456789abcdef";

/** Rows enough for the arguments to pass the inline limit, the first with a secret in it. */
const rows = [
  { apiKey: SECRET, name: "row 0" },
  ...Array.from({ length: 1_500 }, (_, index) => ({
    name: `row ${index + 1}`,
    pad: "x".repeat(20),
  })),
];

function rowsAgent(seen: number[]) {
  const store = defineTool({
    name: "store_rows",
    description: "Stores rows.",
    parameters: z.object({ rows: z.array(z.record(z.string(), z.string())) }),
    handler: ({ rows: given }) => {
      seen.push(given.length);
      return { stored: given.length };
    },
  });
  const script: Script = [{ call: [{ tool: "store_rows", args: { rows } }] }, { say: "stored" }];
  return scriptedAgent(script, { tools: [store] });
}

function ofType<T extends RunEvent["type"]>(events: readonly RunEvent[], type: T) {
  return events.filter((event): event is Extract<RunEvent, { type: T }> => event.type === type);
}

describe("call arguments over the inline limits", () => {
  it("are logged as a blob and a redacted preview; the tool gets them whole", async () => {
    expect(JSON.stringify({ rows }).length).toBeGreaterThan(INLINE_VALUE_LIMIT_BYTES);
    const seen: number[] = [];
    const blobs = createMemoryBlobStore();
    const run = await play(rowsAgent(seen), { blobs });

    expect(seen).toEqual([rows.length]);
    const [responded] = ofType(run.events, "model-responded");
    const [called] = ofType(run.events, "tool-called");
    const logged = responded!.data.calls[0]!;
    expect(logged.args).toEqual({ truncated: true, preview: expect.any(String) });
    const { preview } = logged.args as { preview: string };
    expect(preview.length).toBe(CALL_ARGS_PREVIEW_CHARS);
    expect(preview).not.toContain(SECRET);
    // The preview is the one the whole arguments, redacted, would give.
    expect(preview).toBe(truncateText(redactedText({ rows }), CALL_ARGS_PREVIEW_CHARS).text);
    expect(called!.data.args).toEqual(logged.args);
    expect(called!.data.argsRef).toEqual(logged.argsRef);
    const blob = await blobs.get(logged.argsRef!);
    expect(JSON.parse(blob!.value)).toEqual({ rows });
    expect(await wholeCall(logged, blobs)).toEqual({
      callId: logged.callId,
      name: logged.name,
      args: { rows },
    });
    // The model reads its own call back cut: the preview, not the rows.
    const assistant = run.requests[1]!.messages.find((message) => message.role === "assistant");
    expect(assistant).toMatchObject({ calls: [{ args: logged.args }] });
    expect(run.result?.status).toBe("succeeded");
  });

  it("are read back from their blob when the call is resumed from the log", async () => {
    const seen: number[] = [];
    const blobs = createMemoryBlobStore();
    const first = await play(rowsAgent(seen), { blobs });
    // The log up to the model's response (run-queued, run-started, model-responded): the tool never ran.
    const cut = first.sink.events(first.runId).slice(0, 3);
    expect(cut.map((event) => event.type)).toEqual([
      "run-queued",
      "run-started",
      "model-responded",
    ]);
    const sink = createMemorySink();
    const asNew = (events: readonly RunEvent[]) =>
      events.map(({ type, at, data }) => ({ type, at, data }) as NewEvent);
    await sink.append(first.runId, 0, asNew(cut));
    const restarted: NewEvent = {
      type: "run-started",
      at: new Date().toISOString(),
      data: { attempt: 2, workerId: "w2" },
    };
    await sink.append(first.runId, 3, [restarted]);

    const resumedSeen: number[] = [];
    const state = await runSteps({
      agent: rowsAgent(resumedSeen),
      state: sink.state(first.runId),
      sink,
      blobs,
      signal: new AbortController().signal,
    });

    expect(resumedSeen).toEqual([rows.length]);
    expect(state.status).toBe("succeeded");
    const [called] = ofType(sink.events(first.runId), "tool-called");
    expect(called!.data.argsRef).toEqual(ofType(cut, "model-responded")[0]!.data.calls[0]!.argsRef);
  });

  it("are logged whole with cutLargeCallArgs false, as before", async () => {
    const seen: number[] = [];
    const sink = createMemorySink();
    const agent = rowsAgent(seen);
    const start = await startRun(sink, agent);
    const state = await runSteps({
      agent,
      state: start,
      sink,
      signal: new AbortController().signal,
      cutLargeCallArgs: false,
    });

    const [responded] = ofType(sink.events(state.runId), "model-responded");
    expect(responded!.data.calls[0]).toEqual({
      callId: expect.any(String),
      name: "store_rows",
      args: { rows },
    });
    const [called] = ofType(sink.events(state.runId), "tool-called");
    expect(called!.data).not.toHaveProperty("argsRef");
    expect(seen).toEqual([rows.length]);
  });
});
