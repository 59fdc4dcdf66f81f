/**
 * Streaming on the page, in a real browser (Debian's Chromium through
 * playwright-core): a worker runs an agent on `openaiModel({ stream: true })`
 * against the fake OpenAI server streaming over HTTP; the fake server holds
 * the answer halfway, and the run page shows the words so far, then the
 * whole text as it arrives, equal to the logged one. Also the SSE endpoint
 * itself: deltas with their offsets as ids, resumable with `Last-Event-ID`.
 */
import { foldRun, settleRun } from "@errand/core";
import { createWorker, type ErrandWorker, runViewUrl } from "@errand/engine";
import { defineAgent, openaiModel } from "@errand/runtime";
import { type FakeOpenAI, startFakeOpenAI } from "@errand/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type BrowserSession, launchBrowser } from "./test-support/browser.js";
import { waitFor } from "./test-support/wait-for.js";
import { silentLogger, startWorkload, type Workload } from "./test-support/workload.js";

const STREAMER = "streamer";
const story =
  "Every word of this answer reaches the page while the model is still writing the rest of it, " +
  "and the log keeps the whole answer once it is done.";
/** The Chat Completions event the fake server holds the answer before: halfway through the words. */
const HOLD_AT = 10;

let w: Workload;
let browser: BrowserSession;
let fake: FakeOpenAI;
let worker: ErrandWorker;
let release: () => void = () => {};
let held: Promise<void>;

beforeAll(async () => {
  browser = await launchBrowser();
  w = await startWorkload("stream");
  const hold = new Promise<void>((resolve) => {
    release = resolve;
  });
  let reached: () => void = () => {};
  held = new Promise<void>((resolve) => {
    reached = resolve;
  });
  fake = await startFakeOpenAI({
    scripts: { [STREAMER]: [{ say: story }] },
    holdStream: (_request, index) => {
      if (index !== HOLD_AT) return undefined;
      reached();
      return hold;
    },
  });
  const model = openaiModel({
    apiKey: "test",
    baseURL: fake.baseURL,
    model: STREAMER,
    stream: true,
  });
  worker = await createWorker({
    connection: w.server.url,
    prefix: w.prefix,
    shards: 4,
    agents: [defineAgent({ name: STREAMER, instructions: "Tell.", model })],
    logger: silentLogger,
  });
});

afterAll(async () => {
  release();
  await worker?.close();
  await fake?.close();
  await browser?.close();
  await w?.stop();
});

it("shows a streaming model's text on the run page as it arrives, then the logged text", async () => {
  const { runId } = await w.errand.fire({ agent: STREAMER, input: "Tell." });
  await held;
  const { page } = browser;
  await page.goto(runViewUrl(w.dashboard.url, runId));
  const live = page.locator('[data-testid="live-text"]');
  const partial = await waitFor("the words before the hold", async () => {
    const text = (await live.textContent()) ?? "";
    return text.split(" ").length >= HOLD_AT - 2 ? text : undefined;
  });
  expect(story.startsWith(partial)).toBe(true);
  expect(partial.length).toBeLessThan(story.length);
  expect(await page.locator('[data-testid="run-status"]').textContent()).toBe("running");
  await browser.screenshot("stream-01-halfway");

  release();
  await waitFor("the whole text", async () =>
    (await live.textContent()) === story ? true : undefined,
  );
  await page.locator('[data-testid="run-status"]', { hasText: "succeeded" }).waitFor();
  const logged = settleRun(foldRun(await w.errand.store.readLog(runId), runId));
  expect(logged).toMatchObject({ status: "succeeded", text: story });
  await browser.screenshot("stream-02-done");

  const url = `${w.dashboard.url}/api/runs/${runId}/stream`;
  const all = await sseEvents(await fetch(url));
  const deltas = all.filter((e) => e.event === "delta");
  expect(all.at(-1)?.event).toBe("end");
  expect(deltas.map((e) => JSON.parse(e.data).offset)).toEqual(deltas.map((e) => e.id));
  const resumed = await sseEvents(
    await fetch(url, { headers: { "last-event-id": deltas[3]?.id ?? "" } }),
  );
  expect(resumed.filter((e) => e.event === "delta")).toEqual(deltas.slice(4));
});

/** The events of a finished server-sent-event answer. */
async function sseEvents(
  response: Response,
): Promise<{ event?: string; id?: string; data: string }[]> {
  expect(response.status).toBe(200);
  const text = await response.text();
  return text
    .split("\n\n")
    .filter((block) => block.includes("data:"))
    .map((block) => {
      const fields = new Map(
        block
          .split("\n")
          .map((line) => [
            line.slice(0, line.indexOf(":")),
            line.slice(line.indexOf(":") + 1).trim(),
          ]),
      );
      return {
        ...(fields.has("event") ? { event: fields.get("event") } : {}),
        ...(fields.has("id") ? { id: fields.get("id") } : {}),
        data: fields.get("data") ?? "",
      };
    });
}
