/**
 * Many viewers of running runs over real HTTP on a real deployment: 500
 * live streams are served from a bounded number of Redis connections (the
 * Redis's `connected_clients` barely moves, and a Redis with little room
 * for clients still takes a `fire` from a new client), every viewer receives
 * its run's events to the end, and one viewer more than `maxLiveClients`
 * (default 500) is refused with 503 and `Retry-After`.
 */
import { createErrand } from "@errand/engine";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIVE_RETRY_AFTER_SECONDS } from "./live/live-streams.js";
import { DEFAULT_MAX_LIVE_CLIENTS } from "./options.js";
import type { TimelineEvent } from "./present/timeline.js";
import { CITY, cityAnswerSchema, gatedThenRecord, openGate } from "./test-support/agents.js";
import { openSse, requestJson, type SseMessage, type SseStream } from "./test-support/http.js";
import { startWorkload, TEST_SHARDS, type Workload } from "./test-support/workload.js";

/** As many runs as the test worker runs at once: every one of them running. */
const RUNNING_RUNS = 8;

/** The room for new clients left on the Redis while the viewers watch. */
const CLIENT_ROOM = 40;

let w: Workload;
let base: string;
let admin: Redis;
const runs: string[] = [];

async function connectedClients(): Promise<number> {
  const info = await admin.info("clients");
  return Number(/connected_clients:(\d+)/.exec(info)?.[1]);
}

beforeAll(async () => {
  w = await startWorkload("live-load");
  base = w.dashboard.url;
  admin = new Redis(w.server.url);
  for (let index = 0; index < RUNNING_RUNS; index++) {
    const { runId } = await w.errand.fire({
      agent: CITY,
      input: { script: gatedThenRecord(`load-${index}`, `City ${index}`) },
      outputSchema: cityAnswerSchema,
    });
    runs.push(runId);
  }
  for (const runId of runs) await w.waitForEvent(runId, (event) => event.type === "run-started");
});

afterAll(async () => {
  admin?.disconnect();
  await w?.stop();
});

describe(`${DEFAULT_MAX_LIVE_CLIENTS} viewers of running runs`, () => {
  let viewers: SseStream[] = [];
  /** What each viewer received, in order. */
  const received: SseMessage[][] = [];

  afterAll(() => {
    for (const viewer of viewers) viewer.close();
  });

  it("take a bounded number of Redis connections, and leave room for fire", async () => {
    const before = await connectedClients();
    await admin.config("SET", "maxclients", String(before + CLIENT_ROOM));
    viewers = await Promise.all(
      Array.from({ length: DEFAULT_MAX_LIVE_CLIENTS }, (_, index) =>
        openSse(base, `/api/runs/${runs[index % RUNNING_RUNS]}/live`),
      ),
    );
    expect(viewers.every((viewer) => viewer.status === 200)).toBe(true);
    for (const viewer of viewers) {
      const backlog = await viewer.until(
        (message) =>
          message.event === "event" && (message.data as TimelineEvent).type === "run-started",
      );
      expect(backlog[0]?.event).toBe("run");
      received.push(backlog);
    }
    expect(await connectedClients()).toBeLessThanOrEqual(before + 4);

    const newcomer = createErrand({
      connection: w.server.url,
      prefix: w.prefix,
      shards: TEST_SHARDS,
    });
    try {
      const fired = await newcomer.fire({
        agent: CITY,
        input: { script: gatedThenRecord("load-late", "Late") },
        outputSchema: cityAnswerSchema,
      });
      expect((await w.errand.store.readHead(fired.runId))?.status).toBe("queued");
      await w.errand.cancel(fired.runId);
    } finally {
      await newcomer.close();
    }
  });

  it("refuse one viewer more with 503 busy and Retry-After", async () => {
    for (const path of [`/api/runs/${runs[0]}/live`, "/api/live"]) {
      const refused = await requestJson<{ error: { code: string; retryable: boolean } }>(
        base,
        path,
      );
      expect(refused.status, path).toBe(503);
      expect(refused.headers.get("retry-after")).toBe(String(LIVE_RETRY_AFTER_SECONDS));
      expect(refused.body.error).toMatchObject({ code: "busy", retryable: true });
    }
  });

  it("each receive their run's events to its end, and make room once they end", async () => {
    for (let index = 0; index < RUNNING_RUNS; index++) openGate(`load-${index}`);
    const logs = await Promise.all(
      runs.map(async (runId) => {
        await w.waitForResult(runId);
        return (await w.errand.store.readLog(runId)).map((event) => [event.seq, event.type]);
      }),
    );
    for (const [index, viewer] of viewers.entries()) {
      const messages = [...received[index]!, ...(await viewer.until((m) => m.event === "end"))];
      const events = messages
        .filter((message) => message.event === "event")
        .map((message) => message.data as TimelineEvent);
      expect(events.map((event) => [event.seq, event.type])).toEqual(logs[index % RUNNING_RUNS]);
      expect(messages.at(-1)?.data).toMatchObject({ status: "succeeded" });
      await viewer.ended();
    }
    const again = await openSse(base, `/api/runs/${runs[0]}/live`);
    expect(again.status).toBe(200);
    expect((await again.until((message) => message.event === "end")).at(-1)?.event).toBe("end");
    again.close();
  });
});
