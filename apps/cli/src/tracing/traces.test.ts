/**
 * Traces against a real peer: the built `errand` processes run the real
 * OpenTelemetry SDK (`@opentelemetry/sdk-trace-node` with the OTLP/HTTP
 * exporter, enabled by `OTEL_EXPORTER_OTLP_ENDPOINT`) and export to a local
 * receiver that decodes the OTLP JSON they post.
 *
 * `errand fire` fires a scripted parent; worker A runs it: it spawns a
 * child and parks. Worker A is SIGKILLed while the child sleeps in its first
 * step; worker B takes the child over once its lock lapses, finishes it, and
 * resumes the parent, which collects the child. Fire → worker → child →
 * collect is one trace, and the child's second attempt links to its first.
 */
import { createErrand, type Errand, engineKeys } from "@errand/engine";
import { type RedisServer, startRedis, uniqueKeyPrefix } from "@errand/testing";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CITY_SCHEMA, SCRIPTED_CITY } from "../test-support/city.js";
import {
  type OtlpReceiver,
  type ReceivedSpan,
  SPAN_KIND,
  startOtlpReceiver,
} from "../test-support/otlp-receiver.js";
import {
  type ErrandProcess,
  FIXTURE_AGENTS,
  fixtureQueue,
  spawnErrand,
} from "../test-support/processes.js";
import { runErrand } from "../test-support/run-errand.js";

const prefix = uniqueKeyPrefix("cli-traces");
const queue = fixtureQueue(prefix);
/** Long enough to kill worker A inside the child's first step, every time. */
const CHILD_SLEEP_MS = 4_000;
/** Worker B takes the child over once A's lock lapses (the engine's default job lock) and a stalled check runs. */
const TAKEOVER_TIMEOUT_MS = 120_000;
/** OTLP's `STATUS_CODE_ERROR`. */
const SPAN_STATUS_ERROR = 2;

let server: RedisServer;
let receiver: OtlpReceiver;
let errand: Errand;
let redis: Redis;
const processes: ErrandProcess[] = [];

beforeAll(async () => {
  server = await startRedis({ maxmemoryPolicy: "noeviction" });
  receiver = await startOtlpReceiver();
  errand = createErrand({ connection: server.url, prefix });
  redis = new Redis(server.url);
});
afterAll(async () => {
  for (const process of processes) await process.stop("SIGKILL");
  await errand?.close();
  redis?.disconnect();
  await receiver?.close();
  await server?.stop();
});

function tracingEnv(service: string): Record<string, string> {
  return {
    REDIS_URL: server.url,
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_SERVICE_NAME: service,
    OTEL_BSP_SCHEDULE_DELAY: "100",
  };
}

async function startWorker(service: string): Promise<ErrandProcess> {
  const args = ["worker", "--agents", FIXTURE_AGENTS, "--prefix", prefix];
  const worker = await spawnErrand(args, tracingEnv(service), "worker ready");
  processes.push(worker);
  return worker;
}

/** The child: it sleeps, calls a tool nobody has (refused), then records its output. */
const CHILD = {
  agent: SCRIPTED_CITY,
  outputSchema: CITY_SCHEMA,
  input: {
    script: [
      {
        sleepMs: CHILD_SLEEP_MS,
        call: [
          { tool: "no_such_tool", args: {} },
          { tool: "structured_output", args: { city: "Oslo", population: 709_000 } },
        ],
      },
    ],
  },
};
const PARENT_INPUT = {
  script: [
    { call: [{ tool: "spawn_agents", args: { agents: [CHILD] } }] },
    { call: [{ tool: "collect_agents", args: { wait: true } }] },
    { say: "Collected." },
  ],
};

async function until<T>(read: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`nothing after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function one(spans: readonly ReceivedSpan[], match: (span: ReceivedSpan) => boolean): ReceivedSpan {
  const found = spans.filter(match);
  expect(found, `spans: ${spans.map((span) => span.name).join(", ")}`).toHaveLength(1);
  return found[0]!;
}

const of = (runId: string) => (span: ReceivedSpan) =>
  span.attributes["messaging.message.id"] === runId || span.attributes["errand.run.id"] === runId;

describe("traces exported by errand's processes over OTLP/HTTP", () => {
  it("make fire → worker → child → collect one trace, and link a resumed attempt to the one a SIGKILL ended", async () => {
    const collector = await spawnErrand(
      ["collector", "--prefix", prefix],
      tracingEnv("errand-collector"),
      "collector ready",
    );
    processes.push(collector);
    const workerA = await startWorker("errand-worker-a");
    const fired = await runErrand(
      ["fire", "scripted-parent", "--input", JSON.stringify(PARENT_INPUT), "--prefix", prefix],
      { env: tracingEnv("errand-fire") },
    );
    expect(fired.code, fired.stderr).toBe(0);
    const parentId = fired.stdout.trim();

    // The child is inside its first step on worker A, whose spans of the parent so far are exported.
    const childId = await until(async () => {
      const [child] = await redis.zrange(engineKeys(prefix).children(parentId), 0, -1);
      if (child === undefined) return undefined;
      const log = await errand.store.readLog(child);
      return log.some((event) => event.type === "run-started") ? child : undefined;
    }, 30_000);
    await receiver.waitFor(
      (spans) => spans.some((span) => span.name === `process ${queue}` && of(parentId)(span)),
      30_000,
    );
    expect(await workerA.stop("SIGKILL")).toBeNull();

    const workerB = await startWorker("errand-worker-b");
    const result = await errand.result(parentId, { waitMs: TAKEOVER_TIMEOUT_MS });
    expect(result?.status).toBe("succeeded");
    expect(await workerB.stop()).toBe(0);
    expect(await collector.stop()).toBe(0);

    const spans = receiver.spans();
    const byId = new Map(spans.map((span) => [span.spanId, span]));
    const parentOf = (span: ReceivedSpan) => byId.get(span.parentSpanId ?? "");

    // fire: a PRODUCER span in the messaging conventions, the root of the trace.
    const send = one(spans, (span) => span.name === `send ${queue}` && of(parentId)(span));
    expect(send).toMatchObject({ service: "errand-fire", kind: SPAN_KIND.producer });
    expect(send.parentSpanId).toBeUndefined();
    expect(send.attributes).toMatchObject({
      "messaging.system": "bullmq",
      "messaging.operation.type": "send",
      "messaging.destination.name": queue,
      "messaging.message.id": parentId,
    });
    const { traceId } = send;
    const runSpans = spans.filter((span) => span.service !== "errand-collector");
    expect(new Set(runSpans.map((span) => span.traceId))).toEqual(new Set([traceId]));

    // The parent's jobs: each a CONSUMER span under the send span, one per time a worker took it.
    const parentProcesses = spans.filter(
      (span) => span.name === `process ${queue}` && of(parentId)(span),
    );
    expect(parentProcesses.length).toBeGreaterThanOrEqual(2);
    for (const process of parentProcesses) {
      expect(process).toMatchObject({ kind: SPAN_KIND.consumer, parentSpanId: send.spanId });
      expect(process.attributes).toMatchObject({
        "messaging.operation.type": "process",
        "messaging.message.id": parentId,
      });
    }
    const outcomes = parentProcesses.map((span) => span.attributes["errand.process.outcome"]);
    expect(outcomes).toContain("parked");
    expect(outcomes).toContain("settled");

    // The parent's attempts: invoke_agent under a process span, chat and execute_tool under it.
    const parentAgents = spans.filter(
      (span) => span.name === "invoke_agent scripted-parent" && of(parentId)(span),
    );
    expect(parentAgents).toHaveLength(2);
    for (const agent of parentAgents) {
      expect(parentOf(agent)?.name).toBe(`process ${queue}`);
      expect(agent.attributes).toMatchObject({
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": "scripted-parent",
        "gen_ai.conversation.id": parentId,
      });
    }
    const spawn = one(spans, (span) => span.name === "execute_tool spawn_agents");
    expect(spawn.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "spawn_agents",
      "gen_ai.tool.call.id": "call_1_1",
    });
    expect(parentAgents).toContainEqual(parentOf(spawn));
    // collect_agents parked the parent in its first attempt (not an error) and answered in its second.
    const collects = spans.filter((span) => span.name === "execute_tool collect_agents");
    expect(new Set(collects.map((span) => span.parentSpanId))).toEqual(
      new Set(parentAgents.map((agent) => agent.spanId)),
    );
    for (const collect of collects) expect(collect.status.code).not.toBe(SPAN_STATUS_ERROR);
    const chats = spans.filter((span) => span.name === "chat scripted");
    const firstChat = chats.find((span) => span.parentSpanId === parentOf(spawn)?.spanId);
    expect(firstChat).toMatchObject({ kind: SPAN_KIND.client });
    expect(firstChat?.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "scripted",
      "gen_ai.request.model": "scripted",
      "gen_ai.response.finish_reasons": ["tool_calls"],
    });
    expect(firstChat?.attributes["gen_ai.usage.input_tokens"]).toBeGreaterThan(0);
    expect(firstChat?.attributes["gen_ai.usage.output_tokens"]).toBeGreaterThan(0);

    // The child: fired under the spawn_agents span, so the same trace.
    const childSend = one(spans, (span) => span.name === `send ${queue}` && of(childId)(span));
    expect(childSend).toMatchObject({ kind: SPAN_KIND.producer, parentSpanId: spawn.spanId });
    expect(childSend.service).toBe("errand-worker-a");

    // Worker A died inside the child's first attempt: its spans never left; B's attempt links to it.
    const childLog = await errand.store.readLog(childId);
    const started = childLog.flatMap((event) => (event.type === "run-started" ? [event.data] : []));
    expect(started.map((data) => data.attempt)).toEqual([1, 2]);
    const [first, second] = started.map((data) => data.trace?.traceparent.split("-"));
    const childAgent = one(spans, (span) => span.name === `invoke_agent ${SCRIPTED_CITY}`);
    expect(childAgent).toMatchObject({ service: "errand-worker-b", traceId, spanId: second?.[2] });
    expect(childAgent.attributes["errand.run.attempt"]).toBe(2);
    expect(childAgent.links).toEqual([
      {
        traceId: first?.[1],
        spanId: first?.[2],
        attributes: { "errand.link": "previous_attempt" },
      },
    ]);
    expect(parentOf(childAgent)).toMatchObject({
      name: `process ${queue}`,
      parentSpanId: childSend.spanId,
    });
    expect(childAgent.events.map((event) => event.name)).toEqual([
      "errand.refused",
      "errand.output_recorded",
    ]);
    expect(childAgent.events[0]?.attributes).toMatchObject({
      "errand.refusal.reason": "unknown-tool",
      "gen_ai.tool.name": "no_such_tool",
    });
    expect(childAgent.attributes["errand.run.status"]).toBe("succeeded");

    // Message contents are off by default.
    const contentKeys = ["gen_ai.input.messages", "gen_ai.output.messages", "errand.output"];
    for (const span of spans) {
      for (const key of contentKeys) expect(span.attributes).not.toHaveProperty(key);
    }
  });
});
