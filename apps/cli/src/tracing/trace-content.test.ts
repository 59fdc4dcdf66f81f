/**
 * Message contents on spans: off by default, redacted when turned on; and
 * when the CLI turns tracing and contents on from the environment. The spans
 * are recorded by the real SDK into memory around a run stepped in this
 * process.
 */
import { REDACTED } from "@errand/core";
import {
  createMemorySink,
  defineAgent,
  defineTool,
  runSteps,
  scriptedModel,
} from "@errand/runtime";
import { context, propagation, trace } from "@opentelemetry/api";
import {
  InMemorySpanExporter,
  NodeTracerProvider,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { runErrand } from "../test-support/run-errand.js";
import { tracingWanted } from "./start-tracing.js";
import { TRACE_CONTENT_VARIABLE, traceContentOption } from "./trace-content.js";

const SECRET = "hunter2-do-not-show";
const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

beforeAll(() => {
  provider.register();
});
afterAll(async () => {
  await provider.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
});

const lookup = defineTool({
  name: "lookup",
  description: "Looks a word up.",
  parameters: z.object({ word: z.string(), password: z.string() }),
  handler: ({ word }) => ({ word, meaning: "a swimming mammal", sessionId: SECRET }),
});
const agent = defineAgent({
  name: "definer",
  instructions: "Define the word.",
  model: scriptedModel(),
  tools: [lookup],
  script: [
    { call: [{ tool: "lookup", args: { word: "otter", password: SECRET } }] },
    { say: "An otter swims." },
  ],
});

/** Steps one run of `agent` to its end and returns the spans it made. */
async function spansOfRun(runId: string, traceContent: boolean | undefined) {
  exporter.reset();
  const sink = createMemorySink();
  const at = new Date().toISOString();
  const limits = { maxSteps: 4 };
  const queued = { agent: agent.name, input: { word: "otter" }, rootRunId: runId, depth: 0 };
  await sink.append(runId, 0, [
    { type: "run-queued", at, data: { ...queued, limits, metadata: {} } },
    { type: "run-started", at, data: { attempt: 1, workerId: "w1" } },
  ]);
  await runSteps({
    agent,
    state: sink.state(runId),
    sink,
    signal: new AbortController().signal,
    ...(traceContent === undefined ? {} : { traceContent }),
  });
  return exporter.getFinishedSpans();
}

function named(spans: readonly ReadableSpan[], name: string): ReadableSpan {
  const span = spans.find((candidate) => candidate.name === name);
  if (span === undefined) throw new Error(`no span ${name} in ${spans.map((s) => s.name)}`);
  return span;
}

describe("message contents on spans", () => {
  it("are left off by default: names, ids and counts only", async () => {
    const spans = await spansOfRun("run-default", undefined);
    const chat = named(spans, "chat scripted");
    const tool = named(spans, "execute_tool lookup");
    expect(chat.attributes["gen_ai.usage.output_tokens"]).toBeGreaterThan(0);
    expect(tool.attributes["gen_ai.tool.call.id"]).toBe("call_1_1");
    for (const span of spans) {
      expect(Object.keys(span.attributes).filter((key) => key.endsWith("messages"))).toEqual([]);
      expect(span.attributes).not.toHaveProperty("gen_ai.tool.call.arguments");
      expect(span.attributes).not.toHaveProperty("gen_ai.tool.call.result");
    }
  });

  it("are put on the spans with traceContent, every secret redacted by the project's list", async () => {
    const spans = await spansOfRun("run-content", true);
    const tool = named(spans, "execute_tool lookup");
    expect(JSON.parse(String(tool.attributes["gen_ai.tool.call.arguments"]))).toEqual({
      word: "otter",
      password: REDACTED,
    });
    expect(JSON.parse(String(tool.attributes["gen_ai.tool.call.result"]))).toEqual({
      word: "otter",
      meaning: "a swimming mammal",
      sessionId: REDACTED,
    });
    const chats = spans.filter((span) => span.name === "chat scripted");
    expect(chats).toHaveLength(2);
    expect(String(chats[0]?.attributes["gen_ai.input.messages"])).toContain("otter");
    expect(String(chats[1]?.attributes["gen_ai.output.messages"])).toContain("An otter swims.");
    for (const span of spans) expect(JSON.stringify(span.attributes)).not.toContain(SECRET);
  });
});

describe("the CLI's switches", () => {
  it("turn tracing on only for an OTLP endpoint, and off again with the SDK's own switches", () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" };
    expect(tracingWanted({})).toBe(false);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: " " })).toBe(false);
    expect(tracingWanted(endpoint)).toBe(true);
    expect(
      tracingWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://127.0.0.1:4318/v1/traces" }),
    ).toBe(true);
    expect(tracingWanted({ ...endpoint, OTEL_SDK_DISABLED: "true" })).toBe(false);
    expect(tracingWanted({ ...endpoint, OTEL_TRACES_EXPORTER: "none" })).toBe(false);
  });

  it("turn contents on only when the GenAI capture variable is true", () => {
    expect(traceContentOption({})).toEqual({});
    expect(traceContentOption({ [TRACE_CONTENT_VARIABLE]: "false" })).toEqual({});
    expect(traceContentOption({ [TRACE_CONTENT_VARIABLE]: "TRUE" })).toEqual({
      traceContent: true,
    });
  });

  it("refuse bench --tracing under an OTLP endpoint, whose SDK would take the bench's place", async () => {
    const refused = await runErrand(["bench", "--quick", "--tracing"], {
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9" },
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("bench: --tracing records spans in memory");
  });
});
