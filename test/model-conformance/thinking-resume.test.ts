/**
 * A run of Claude with extended thinking, SIGKILLed between its steps,
 * resumes on another worker and sends Anthropic the signed thinking it was
 * given, byte for byte: real worker processes on a real Redis, the real
 * `@ai-sdk/anthropic` package against the fake Anthropic server, which
 * refuses a thinking block whose signature it did not issue for exactly
 * that text, and redacted thinking it did not issue. Worker A runs step 1
 * (thinking, redacted thinking, a `note` call) and sends step 2, which the
 * server holds; A is killed; worker B takes the run over from its log and
 * sends step 2 again: the same body, accepted.
 */
import type { RunEvent } from "@errand/core";
import { STRUCTURED_OUTPUT_TOOL } from "@errand/runtime/ops";
import {
  type FakeProvider,
  type ProviderRequest,
  type ProviderTurn,
  startFakeAnthropic,
} from "@errand/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Arrivals } from "./arrivals.js";
import { type ResumeFleet, startResumeFleet } from "./resume-fleet.js";
import { THINKING_AGENT } from "./thinking-agent.js";

/** Step 1 thinks and notes; step 2 thinks and records, held by the server while worker A lives. */
function turnsOf(heldMs: number): ProviderTurn[] {
  return [
    {
      think: true,
      redact: true,
      call: [{ tool: "note", args: { finding: "Lyon is larger than Nice." } }],
    },
    {
      think: true,
      sleepMs: heldMs,
      call: [{ tool: STRUCTURED_OUTPUT_TOOL, args: { answer: "Lyon" } }],
    },
  ];
}

type Block = Record<string, unknown>;

let fake: FakeProvider;
let fleet: ResumeFleet;
let events: RunEvent[] = [];

beforeAll(async () => {
  let workerAlive = true;
  const arrivals = new Arrivals<ProviderRequest>(() => fake.requests);
  fake = await startFakeAnthropic({
    turnsFor: () => turnsOf(workerAlive ? 120_000 : 0),
    intercept: () => {
      arrivals.notify();
      return undefined;
    },
  });
  fleet = await startResumeFleet("thinking-resume", { FAKE_ANTHROPIC_URL: fake.baseURL });
  const workerA = await fleet.startWorker("worker-a");
  const { runId } = await fleet.errand.fire({ agent: THINKING_AGENT, input: "Lyon or Nice?" });
  await arrivals.until((requests) => requests.length === 2);
  await workerA.signal("SIGKILL");
  workerAlive = false;
  await fleet.startWorker("worker-b");
  events = await fleet.settledLog(runId);
}, 120_000);

afterAll(async () => {
  await fleet?.close();
  await fake?.close();
});

describe("a Claude run with thinking SIGKILLed between its steps", () => {
  it("resumes on another worker and succeeds, its thinking logged with the signatures", () => {
    expect(events.map((event) => event.type)).toEqual([
      "run-queued",
      "run-started",
      "model-responded",
      "tool-called",
      "tool-result",
      "run-started",
      "model-responded",
      "output-recorded",
      "finished",
    ]);
    const issued = fake.requests[0]?.answer?.body as { content: Block[] };
    const [thinking, redacted] = issued.content;
    expect(events[2]).toMatchObject({
      data: {
        items: [
          {
            type: "reasoning",
            text: thinking?.thinking,
            providerMetadata: { anthropic: { signature: thinking?.signature } },
          },
          {
            type: "reasoning",
            text: "",
            providerMetadata: { anthropic: { redactedData: redacted?.data } },
          },
          { type: "function_call" },
        ],
      },
    });
  });

  it("sends step 2 byte for byte as the killed worker did, the signed blocks first, and is answered", () => {
    const [step1, killedStep2, resumedStep2] = fake.requests;
    expect(fake.requests).toHaveLength(3);
    expect(resumedStep2?.rawBody).toBe(killedStep2?.rawBody);
    const issued = (step1?.answer?.body as { content: Block[] } | undefined)?.content ?? [];
    const sent = resumedStep2?.body as { messages: { role: string; content: Block[] }[] };
    const assistant = sent.messages.find((message) => message.role === "assistant");
    expect(assistant?.content.slice(0, 3)).toEqual([
      { type: "thinking", thinking: issued[0]?.thinking, signature: issued[0]?.signature },
      { type: "redacted_thinking", data: issued[1]?.data },
      expect.objectContaining({ type: "tool_use", id: issued[2]?.id, name: "note" }),
    ]);
    expect(resumedStep2?.answer?.status).toBe(200);
  });
});
