/**
 * `errand.stream` end to end: a worker runs an agent on
 * `openaiModel({ stream: true })` through the real `openai` client against
 * the fake server streaming over HTTP (both APIs); subscribers read the run's
 * live channel from Redis. Deltas arrive in order, a late subscriber catches
 * up on the step so far, a subscriber resumes from an offset, the text equals
 * the logged one, the log holds the steps and none of the deltas, and the
 * channel expires on its own. A worker process
 * SIGKILLed mid-stream: the subscriber sees a new `start` of the next attempt
 * and the step from its beginning, and the log has it once.
 */
import { foldRun, type LiveEntry, type RunEvent, settleRun } from "@errand/core";
import { type Agent, defineAgent, defineTool, openaiModel } from "@errand/runtime";
import { LIVE_TTL_MS } from "@errand/store";
import { type FakeOpenAI, startFakeOpenAI } from "@errand/testing";
import { describe, expect } from "vitest";
import { z } from "zod";
import { type EngineFixture, FAST_TAKEOVER } from "../test-support/engine-fixture.js";
import { engineTest } from "../test-support/engine-test.js";
import { captureLogs } from "../test-support/log-capture.js";
import { STREAMER } from "../test-support/test-agents.js";
import { createWorker } from "../worker/create-worker.js";

const it = engineTest("stream");

const story =
  "The worker wrote its answer one word at a time, and every word went to the live channel of the run " +
  "before the whole answer was appended to the log, which stays the only truth about what was said.";
const noteArgs = { title: "streamed arguments arrive in pieces" };

/** The event of the first streamed answer the fake server holds, for the worker to be killed. */
const HELD_AT = 6;

let fake: FakeOpenAI;
it.beforeAll(async () => {
  fake = await startFakeOpenAI({
    scripts: {
      teller: [{ call: [{ tool: "note", args: noteArgs }] }, { say: story }],
      plain: [{ say: "quiet" }],
    },
    streamDelayMs: 15,
  });
});
it.afterAll(async () => {
  await fake?.close();
});

const note = defineTool({
  name: "note",
  description: "Takes a note.",
  parameters: z.object({ title: z.string() }),
  handler: () => "noted",
});

/** An in-process worker of `agent` alone. */
function workerOf(fx: EngineFixture, agent: Agent) {
  return createWorker({
    connection: fx.server.url,
    prefix: fx.prefix,
    agents: [agent],
    logger: captureLogs().logger,
  });
}

/** The text deltas of `step` after its last `start`. */
function stepText(entries: readonly LiveEntry[], step: number): string {
  const start = entries.findLastIndex((e) => e.type === "start" && e.step === step);
  return entries
    .slice(start + 1)
    .map((e) => (e.type === "text" && e.step === step ? e.text : ""))
    .join("");
}

async function collect(stream: AsyncIterable<LiveEntry>, onEntry?: (entries: LiveEntry[]) => void) {
  const entries: LiveEntry[] = [];
  for await (const entry of stream) {
    entries.push(entry);
    onEntry?.(entries);
  }
  return entries;
}

describe.each(["chat", "responses"] as const)("errand.stream on the %s API", (api) => {
  it("delivers deltas in order, catches a late subscriber up and ends with the logged text", async ({
    fx,
  }) => {
    const model = openaiModel({
      apiKey: "test",
      baseURL: fake.baseURL,
      model: "teller",
      api,
      stream: true,
    });
    const agent = defineAgent({
      name: `teller-${api}`,
      instructions: "Tell.",
      model,
      tools: [note],
    });
    const worker = await workerOf(fx, agent);
    try {
      const { runId } = await fx.errand.fire({ agent: agent.name, input: "Tell me." });
      let late: Promise<LiveEntry[]> | undefined;
      const first = await collect(fx.errand.stream(runId), (entries) => {
        const words = entries.filter((e) => e.type === "text" && e.step === 2).length;
        if (words === 3) late = collect(fx.errand.stream(runId));
      });
      const events: RunEvent[] = await fx.waitForEvent(runId);
      const result = settleRun(foldRun(events));
      expect(result).toMatchObject({ status: "succeeded", text: story });
      // The log stays the truth: the deltas are not in it, each step's one model-responded is.
      expect(events.map((event) => event.type)).toEqual([
        "run-queued",
        "run-started",
        "model-responded",
        "tool-called",
        "tool-result",
        "model-responded",
        "finished",
      ]);

      const offsets = first.map((e) => e.offset);
      expect(offsets).toEqual([...offsets].sort(compareOffsets));
      expect(new Set(offsets).size).toBe(offsets.length);
      expect(first.filter((e) => e.type === "start")).toMatchObject([
        { step: 1, attempt: 1 },
        { step: 2, attempt: 1 },
      ]);
      const args = first.flatMap((e) => (e.type === "tool-arguments" ? [e.text] : [])).join("");
      expect(JSON.parse(args)).toEqual(noteArgs);
      expect(stepText(first, 2)).toBe(story);

      expect(late).toBeDefined();
      const caughtUp = await (late as Promise<LiveEntry[]>);
      expect(caughtUp[0]).toMatchObject({ type: "start", step: 2 });
      expect(stepText(caughtUp, 2)).toBe(story);

      const resumeAt = first.findIndex((e) => e.type === "text" && e.step === 2) + 2;
      const resumed = await collect(fx.errand.stream(runId, { from: first[resumeAt]?.offset }));
      expect(resumed).toEqual(first.slice(resumeAt + 1));

      const ttl = await fx.redis.pttl(fx.errand.keys.runLive(runId));
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(LIVE_TTL_MS);
    } finally {
      await worker.close();
    }
  });
});

it("shows a subscriber a worker killed mid-stream, then the step again from its start on the next attempt", async ({
  fx,
}) => {
  const killedStory =
    "A worker that dies while it writes loses nothing that the log had, and the next attempt writes the step again.";
  let holdFirst = true;
  const server = await startFakeOpenAI({
    scripts: { [STREAMER]: [{ say: killedStory }] },
    holdStream: (_request, index) => {
      if (!holdFirst || index !== HELD_AT) return undefined;
      holdFirst = false;
      return new Promise<void>(() => {}); // held until the killed worker's connection closes
    },
  });
  try {
    const workerA = await fx.spawn("streamer-a", {
      ...FAST_TAKEOVER,
      streamingModelUrl: server.baseURL,
    });
    const { runId } = await fx.errand.fire({ agent: STREAMER, input: "Tell." });
    let killed = false;
    let rescuer: Promise<unknown> | undefined;
    const seen = await collect(fx.errand.stream(runId), (entries) => {
      const words = stepText(entries, 1).split(" ").filter(Boolean).length;
      if (killed || words < HELD_AT - 1) return;
      killed = true;
      workerA.signal("SIGKILL");
      rescuer = fx.spawn("streamer-b", { ...FAST_TAKEOVER, streamingModelUrl: server.baseURL });
    });
    await rescuer;
    const starts = seen.filter((e) => e.type === "start");
    expect(starts).toMatchObject([
      { step: 1, attempt: 1 },
      { step: 1, attempt: 2 },
    ]);
    const beforeCrash = seen.slice(0, seen.indexOf(starts[1] as LiveEntry));
    expect(killedStory.startsWith(stepText(beforeCrash, 1))).toBe(true);
    expect(stepText(beforeCrash, 1).length).toBeLessThan(killedStory.length);
    expect(stepText(seen, 1)).toBe(killedStory);
    const logged = settleRun(foldRun(await fx.errand.store.readLog(runId), runId));
    expect(logged).toMatchObject({ status: "succeeded", text: killedStory, attempts: 2 });
  } finally {
    await fx.killWorkers();
    await server.close();
  }
});

it("writes no live channel for a model that does not stream, and its stream ends at once", async ({
  fx,
}) => {
  const model = openaiModel({ apiKey: "test", baseURL: fake.baseURL, model: "plain" });
  const worker = await workerOf(fx, defineAgent({ name: "plain", instructions: "Say.", model }));
  try {
    const { runId } = await fx.errand.fire({ agent: "plain", input: "Say." });
    expect(await collect(fx.errand.stream(runId))).toEqual([]);
    expect(settleRun(foldRun(await fx.waitForEvent(runId)))).toMatchObject({ text: "quiet" });
    expect(await fx.redis.exists(fx.errand.keys.runLive(runId))).toBe(0);
  } finally {
    await worker.close();
  }
});

function compareOffsets(a: string, b: string): number {
  const [am = 0, an = 0] = a.split("-").map(Number);
  const [bm = 0, bn = 0] = b.split("-").map(Number);
  return am - bm || an - bn;
}
