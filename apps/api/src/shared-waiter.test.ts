/**
 * Waiting requests share the process's connections
 * (docs/architecture/http-api.md#one-waiter-per-process): 60 long polls and
 * 20 event streams held open at once leave the number of clients connected
 * to Redis where it was with one wait, and every one of them is answered.
 */
import { Redis } from "ioredis";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type ApiStack, startApiStack } from "./test-support/api-stack.js";
import { readEvents } from "./test-support/sse.js";

let stack: ApiStack;
let probe: Redis;
beforeAll(async () => {
  stack = await startApiStack();
  probe = new Redis(stack.redisUrl);
});
afterAll(async () => {
  probe?.disconnect();
  await stack?.stop();
});

const connected = async () =>
  Number(/connected_clients:(\d+)/.exec(await probe.info("clients"))![1]);

it("holds 60 long polls and 20 streams on the connections one wait opened", async () => {
  const fired = await fetch(`${stack.url}/v1/runs/batch`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      runs: Array.from({ length: 20 }, () => ({ agent: "approver", input: null })),
    }),
  });
  const { results } = (await fired.json()) as { results: { runId: string }[] };
  const runIds = results.map((result) => result.runId);
  // One wait and one stream first: the waiter's subscriber and the follower's connections open once.
  await fetch(`${stack.url}/v1/runs/${runIds[0]}?waitMs=50`);
  const first = new AbortController();
  const opened = await fetch(`${stack.url}/v1/runs/${runIds[0]}/events`, {
    headers: { accept: "text/event-stream" },
    signal: first.signal,
  });
  await new Promise((resolve) => setTimeout(resolve, 500));
  first.abort();
  await opened.body?.cancel().catch(() => {});
  const before = await connected();

  const streams = new AbortController();
  const following = await Promise.all(
    runIds.map((runId) =>
      fetch(`${stack.url}/v1/runs/${runId}/events`, {
        headers: { accept: "text/event-stream" },
        signal: streams.signal,
      }),
    ),
  );
  const polls = Array.from({ length: 60 }, (_, index) =>
    fetch(`${stack.url}/v1/runs/${runIds[index % runIds.length]}?waitMs=3000`).then(
      (response) => response.status,
    ),
  );
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const during = await connected();
  expect(await Promise.all(polls)).toEqual(Array(60).fill(200));
  expect(following.map((response) => response.status)).toEqual(Array(20).fill(200));

  // Cancelling the runs ends every stream with `end`.
  await Promise.all(
    runIds.map((runId) =>
      fetch(`${stack.url}/v1/runs/${runId}/cancel`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      }),
    ),
  );
  const ends = await Promise.all(following.map((response) => readEvents(response.body!)));
  expect(ends.map((events) => events.at(-1)?.event)).toEqual(Array(20).fill("end"));
  expect(during).toBe(before);
  expect(await connected()).toBe(before);
});
