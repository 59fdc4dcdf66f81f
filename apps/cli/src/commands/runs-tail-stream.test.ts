/**
 * `errand runs tail --stream`, the built CLI against a real Redis: a worker
 * runs an agent on `openaiModel({ stream: true })` against the fake OpenAI
 * server streaming over HTTP; the CLI prints the deltas as they arrive (JSON
 * lines, or text with a header per model request) and ends when the run
 * settles, the text it printed equal to the logged one.
 */
import { foldRun, type LiveEntry, settleRun } from "@errand/core";
import { createErrand, createWorker, type Errand, type ErrandWorker } from "@errand/engine";
import { defineAgent, openaiModel } from "@errand/runtime";
import {
  type FakeOpenAI,
  type RedisServer,
  startFakeOpenAI,
  startRedis,
  uniqueKeyPrefix,
} from "@errand/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { runErrand } from "../test-support/run-errand.js";

const prefix = uniqueKeyPrefix("cli-tail-stream");
const story =
  "A streamed answer, printed word by word by the command line while the model writes it.";
let server: RedisServer;
let fake: FakeOpenAI;
let client: Errand;
let worker: ErrandWorker;

beforeAll(async () => {
  server = await startRedis({ maxmemoryPolicy: "noeviction" });
  fake = await startFakeOpenAI({ scripts: { teller: [{ say: story }] }, streamDelayMs: 20 });
  client = createErrand({ connection: server.url, prefix });
  const model = openaiModel({
    apiKey: "test",
    baseURL: fake.baseURL,
    model: "teller",
    stream: true,
  });
  worker = await createWorker({
    connection: server.url,
    prefix,
    agents: [defineAgent({ name: "teller", instructions: "Tell.", model })],
  });
});

afterAll(async () => {
  await worker?.close();
  await client?.close();
  await fake?.close();
  await server?.stop();
});

function tail(runId: string, ...flags: string[]) {
  return runErrand(["runs", "tail", runId, "--stream", ...flags, "--prefix", prefix], {
    env: { REDIS_URL: server.url },
  });
}

it("prints the deltas as JSON lines until the run settles, adding up to the logged text", async () => {
  const { runId } = await client.fire({ agent: "teller", input: "Tell." });
  const outcome = await tail(runId, "--json");
  expect(outcome.code).toBe(0);
  const deltas = outcome.stdout
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as LiveEntry);
  expect(deltas[0]).toMatchObject({ type: "start", step: 1, attempt: 1 });
  expect(deltas.every((d) => /^\d+-\d+$/.test(d.offset))).toBe(true);
  const text = deltas.map((d) => (d.type === "text" ? d.text : "")).join("");
  const result = settleRun(foldRun(await client.store.readLog(runId), runId));
  expect(result).toMatchObject({ status: "succeeded", text: story });
  expect(text).toBe(story);
});

it("prints the text under a header per model request, then the run's last event", async () => {
  const { runId } = await client.fire({ agent: "teller", input: "Tell again." });
  const outcome = await tail(runId);
  expect(outcome.code).toBe(0);
  const [header, body, last] = outcome.stdout.trimEnd().split("\n");
  expect(header).toBe("── step 1 ──");
  expect(body).toBe(story);
  expect(last).toContain("finished");
});
