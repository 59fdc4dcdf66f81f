/**
 * What a worker's run metrics count from the events a run appends: tokens
 * by agent, model and type; each tool call once, by tool and by how it ended
 * (`ok`, `error`, `refused`, `recorded`), a call of an earlier attempt named
 * from the run's state; one step duration per model response; the settled
 * run by status and error code, with its duration from queueing to settling.
 */
import type { NewEvent } from "@errand/core";
import { createMemorySink } from "@errand/runtime";
import { describe, expect, it } from "vitest";
import { createPrometheusMetrics } from "./prometheus-metrics.js";
import { createRunMetrics } from "./run-metrics.js";

const RUN_ID = "run-metered";
const AGENT = "researcher";
const MODEL = "gpt-test";
const usage = { inputTokens: 100, outputTokens: 7 };

const call = (callId: string, name: string) => ({ callId, name, args: {} });
const responded = (step: number, calls: ReturnType<typeof call>[]): NewEvent => ({
  type: "model-responded",
  at: new Date().toISOString(),
  data: { step, calls, usage, finish: calls.length > 0 ? "tool_calls" : "stop" },
});
const result = (step: number, callId: string, ok: boolean): NewEvent => ({
  type: "tool-result",
  at: new Date().toISOString(),
  data: { step, callId, ok, bytes: 2, truncated: false, ...(ok ? {} : { error: "boom" }) },
});

/** A run queued at `createdAt` with its first step's `lookup` call left open (as a resumed attempt finds it). */
async function runWithOpenCall(createdAt: string) {
  const sink = createMemorySink();
  const queued = { agent: AGENT, input: {}, rootRunId: RUN_ID, depth: 0 };
  await sink.append(RUN_ID, 0, [
    {
      type: "run-queued",
      at: createdAt,
      data: { ...queued, limits: { maxSteps: 8 }, metadata: {} },
    },
    { type: "run-started", at: createdAt, data: { attempt: 1, workerId: "w1" } },
    responded(1, [call("c0", "lookup")]),
  ]);
  return sink;
}

type Metric = {
  get(): Promise<{ values: { labels: object; value: number; metricName?: string }[] }>;
};

/** Each series of `metric` as `name{label=value,…} value`, in the order prom-client keeps them. */
async function seriesOf(metric: Metric): Promise<string[]> {
  return (await metric.get()).values.map(({ labels, value, metricName }) => {
    const pairs = Object.entries(labels).map(([key, label]) => `${key}=${label}`);
    return `${metricName ?? ""}{${pairs.join(",")}} ${value}`;
  });
}

describe("a worker's run metrics", () => {
  it("count tokens, each tool call by its outcome, and a step per model response", async () => {
    const sink = await runWithOpenCall(new Date().toISOString());
    const metrics = createPrometheusMetrics();
    let clock = 10_000;
    const runMetrics = createRunMetrics(metrics, () => clock);
    const metered = runMetrics.meter(sink, sink.state(RUN_ID), AGENT, MODEL);

    clock += 250;
    // The open call of the first step ends in this attempt; a new step calls four tools.
    await metered.append(RUN_ID, 3, [
      result(1, "c0", true),
      responded(2, [
        call("c1", "search"),
        call("c2", "fetch"),
        call("c3", "no_such_tool"),
        call("c4", "structured_output"),
      ]),
    ]);
    clock += 1_500;
    await metered.append(RUN_ID, 5, [
      {
        type: "tool-called",
        at: new Date().toISOString(),
        data: { step: 2, callId: "c1", name: "search", args: {} },
      },
      result(2, "c1", true),
      {
        type: "tool-called",
        at: new Date().toISOString(),
        data: { step: 2, callId: "c2", name: "fetch", args: {} },
      },
      result(2, "c2", false),
      {
        type: "refused",
        at: new Date().toISOString(),
        data: {
          step: 2,
          callId: "c3",
          name: "no_such_tool",
          reason: "unknown-tool",
          message: "no such tool",
        },
      },
      {
        type: "output-recorded",
        at: new Date().toISOString(),
        data: { step: 2, callId: "c4", output: { ok: 1 } },
      },
    ]);

    expect(await seriesOf(metrics.toolCalls)).toEqual([
      `{agent=${AGENT},tool=lookup,outcome=ok} 1`,
      `{agent=${AGENT},tool=search,outcome=ok} 1`,
      `{agent=${AGENT},tool=fetch,outcome=error} 1`,
      `{agent=${AGENT},tool=no_such_tool,outcome=refused} 1`,
      `{agent=${AGENT},tool=structured_output,outcome=recorded} 1`,
    ]);
    // The step appended before metering is not counted again: one model response since.
    expect(await seriesOf(metrics.tokens)).toEqual([
      `{agent=${AGENT},model=${MODEL},type=input} ${usage.inputTokens}`,
      `{agent=${AGENT},model=${MODEL},type=output} ${usage.outputTokens}`,
    ]);
    const steps = await seriesOf(metrics.stepDuration);
    expect(steps).toContain(`errand_step_duration_seconds_count{agent=${AGENT}} 1`);
    expect(steps).toContain(`errand_step_duration_seconds_sum{agent=${AGENT}} 0.25`);
  });

  it("count a settled run by status and error code, timed from its queueing", async () => {
    const createdAt = "2026-03-01T12:00:00.000Z";
    const sink = await runWithOpenCall(createdAt);
    const metrics = createPrometheusMetrics();
    const runMetrics = createRunMetrics(metrics);
    await sink.append(RUN_ID, 3, [
      {
        type: "failed",
        at: "2026-03-01T12:00:42.000Z",
        data: { code: "model_error", message: "the model failed", retryable: false },
      },
    ]);
    runMetrics.settled(sink.state(RUN_ID));

    expect(await seriesOf(metrics.runsSettled)).toEqual([
      `{agent=${AGENT},status=failed,error_code=model_error} 1`,
    ]);
    const durations = await seriesOf(metrics.runDuration);
    const duration = "errand_run_duration_seconds";
    expect(durations).toContain(`${duration}_sum{agent=${AGENT},status=failed} 42`);
    expect(durations).toContain(`${duration}_bucket{le=30,agent=${AGENT},status=failed} 0`);
    expect(durations).toContain(`${duration}_bucket{le=60,agent=${AGENT},status=failed} 1`);
  });
});
