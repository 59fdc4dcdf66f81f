/**
 * Every endpoint of `/v1` over real HTTP, called through a client generated
 * from the OpenAPI document (openapi-typescript's types, openapi-fetch),
 * against a real Redis with a worker and a collector: fire one (with an
 * `Idempotency-Key`) and many (partial success), wait for a run, collect
 * a set by pages, list with a filter and cursor, a run's events as pages
 * and as a resumed stream, its deltas, cancel, waitpoints listed and
 * answered, agents, the served document, and the probes.
 */
import createClient from "openapi-fetch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiDocument } from "./openapi-document.js";
import { type ApiStack, startApiStack } from "./test-support/api-stack.js";
import type { paths } from "./test-support/openapi-types.js";
import { readEvents } from "./test-support/sse.js";

let stack: ApiStack;
let client: ReturnType<typeof createClient<paths>>;

beforeAll(async () => {
  stack = await startApiStack();
  client = createClient<paths>({ baseUrl: stack.url });
});
afterAll(async () => stack?.stop());

/** Fires a greeter for `name`; its runId. */
async function fireGreeter(name: string): Promise<string> {
  const { data } = await client.POST("/v1/runs", { body: { agent: "greeter", input: { name } } });
  return data!.runId;
}

/** The JSON page of an answer that may be JSON or a stream (the events route's). */
function jsonPage<T>(data: T): Exclude<T, string | undefined> {
  if (data === undefined || typeof data === "string") throw new Error("not a JSON page");
  return data as Exclude<T, string | undefined>;
}

/** Polls `read` until it answers something, within a generous bound. */
async function eventually<T>(read: () => Promise<T | undefined>): Promise<T> {
  for (let attempt = 0; attempt < 300; attempt += 1) {
    const value = await read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error("never came");
}

describe("the API through a client generated from its document", () => {
  it("lists the agents with their descriptions, input schemas, versions and live workers", async () => {
    const { data, response } = await client.GET("/v1/agents");
    expect(response.status).toBe(200);
    expect(data!.items.map((agent) => agent.name)).toEqual(["approver", "greeter", "scripted"]);
    const greeter = data!.items.find((agent) => agent.name === "greeter")!;
    expect(greeter.description).toBe("Greets the person its input names.");
    expect(greeter.inputSchema).toMatchObject({ required: ["name"] });
    expect(greeter.liveWorkers).toBe(1);
    expect(greeter.versions).toEqual([expect.objectContaining({ live: true, waitingRuns: 0 })]);
    expect(data!.hasMore).toBe(false);
  });

  it("fires once per Idempotency-Key, and refuses an input its agent's schema refuses", async () => {
    const fire = () =>
      client.POST("/v1/runs", {
        body: { agent: "greeter", input: { name: "Ada" } },
        params: { header: { "idempotency-key": "greet-ada" } },
      });
    const first = await fire();
    expect(first.response.status).toBe(201);
    const again = await fire();
    expect(again.response.status).toBe(200);
    expect(again.data).toEqual({ runId: first.data!.runId, deduplicated: true });

    const refused = await client.POST("/v1/runs", { body: { agent: "greeter", input: {} } });
    expect(refused.response.status).toBe(400);
    expect(refused.error!.error).toMatchObject({ code: "invalid_input", retryable: false });
    expect(refused.error!.error.issues?.[0]?.path).toBe("name");
  });

  it("fires a batch run by run, a bad one failing alone, once per key", async () => {
    const fire = () =>
      client.POST("/v1/runs/batch", {
        body: {
          runs: [
            { agent: "greeter", input: { name: "Grace" } },
            { agent: "nobody", input: null },
            { agent: "greeter", input: { name: "Alan" } },
          ],
        },
        params: { header: { "idempotency-key": "batch-1" } },
      });
    const { data } = await fire();
    expect(data).toMatchObject({ total: 3, succeeded: 2, failed: 1 });
    expect(data!.results[1]).toMatchObject({ ok: false, error: { code: "unknown_agent" } });
    const again = await fire();
    expect(again.data!.results[0]).toEqual({
      ok: true,
      runId: data!.results[0]!.runId,
      deduplicated: true,
    });
  });

  it("waits for a run with waitMs and answers its RunResult", async () => {
    const runId = await fireGreeter("Barbara");
    const { data } = await client.GET("/v1/runs/{runId}", {
      params: { path: { runId }, query: { waitMs: 30_000 } },
    });
    expect(data).toMatchObject({ runId, status: "succeeded", text: "Hello! Nice to meet you." });
  });

  it("collects a set by pages, with the counts of the whole set on each", async () => {
    const runIds = await Promise.all(["a", "b", "c"].map(fireGreeter));
    const first = await client.POST("/v1/runs/collect", {
      body: { runIds, limit: 2, waitMs: 30_000 },
    });
    expect(first.data).toMatchObject({ total: 3, count: 2, hasMore: true });
    const second = await client.POST("/v1/runs/collect", {
      body: { runIds, limit: 2, cursor: first.data!.nextCursor!, waitMs: 30_000 },
    });
    expect(second.data).toMatchObject({
      total: 3,
      succeeded: 3,
      pending: 0,
      count: 1,
      hasMore: false,
    });
    expect([...first.data!.results, ...second.data!.results].map((run) => run.runId)).toEqual(
      runIds,
    );
  });

  it("lists runs newest first, filtered, by pages", async () => {
    const runIds = [await fireGreeter("x"), await fireGreeter("y"), await fireGreeter("z")];
    await client.POST("/v1/runs/collect", { body: { runIds, waitMs: 30_000 } });
    const listed: string[] = [];
    let cursor: string | undefined;
    do {
      const { data } = await client.GET("/v1/runs", {
        params: {
          query: { agent: "greeter", status: "succeeded", limit: 2, ...(cursor ? { cursor } : {}) },
        },
      });
      expect(data!.count).toBeLessThanOrEqual(2);
      listed.push(...data!.items.map((run) => run.runId));
      cursor = data!.hasMore ? data!.nextCursor : undefined;
    } while (cursor !== undefined);
    expect(new Set(listed).size).toBe(listed.length);
    expect(listed.slice(0, 3)).toEqual([...runIds].reverse());
  });

  it("answers a run's events as pages, and as a stream resumed after Last-Event-ID", async () => {
    const runId = await fireGreeter("Edsger");
    await client.GET("/v1/runs/{runId}", {
      params: { path: { runId }, query: { waitMs: 30_000 } },
    });
    const first = await client.GET("/v1/runs/{runId}/events", {
      params: { path: { runId }, query: { limit: 2 } },
    });
    const firstPage = jsonPage(first.data);
    expect(firstPage.items.map((event) => event.seq)).toEqual([1, 2]);
    const rest = await client.GET("/v1/runs/{runId}/events", {
      params: { path: { runId }, query: { cursor: firstPage.nextCursor! } },
    });
    const restPage = jsonPage(rest.data);
    expect(restPage.hasMore).toBe(false);
    const lastSeq = restPage.items.at(-1)!.seq;

    const streamed = await client.GET("/v1/runs/{runId}/events", {
      params: { path: { runId }, header: { "last-event-id": "2" } },
      headers: { accept: "text/event-stream" },
      parseAs: "stream",
    });
    const events = await readEvents(streamed.response.body!);
    expect(events.map((event) => event.id).filter(Boolean)).toEqual(
      Array.from({ length: lastSeq - 2 }, (_, index) => String(index + 3)),
    );
    expect(events.at(-1)).toEqual({ event: "end", data: { runId, status: "succeeded" } });
  });

  it("streams a running run's events and deltas until a cancel settles it", async () => {
    const { data } = await client.POST("/v1/runs", {
      body: { agent: "scripted", input: { script: [{ say: "thinking", sleepMs: 60_000 }] } },
    });
    const runId = data!.runId;
    const open = (path: "/v1/runs/{runId}/events" | "/v1/runs/{runId}/stream") =>
      client.GET(path, {
        params: { path: { runId } },
        headers: { accept: "text/event-stream" },
        parseAs: "stream",
      });
    const [events, deltas] = await Promise.all([
      open("/v1/runs/{runId}/events"),
      open("/v1/runs/{runId}/stream"),
    ]);
    expect(events.response.headers.get("content-type")).toContain("text/event-stream");
    const followed = readEvents(events.response.body!);
    const streamed = readEvents(deltas.response.body!);
    await eventually(async () => {
      const run = await client.GET("/v1/runs/{runId}", { params: { path: { runId } } });
      return run.data!.status === "running" ? true : undefined;
    });
    const cancelled = await client.POST("/v1/runs/{runId}/cancel", {
      params: { path: { runId } },
      body: { reason: "a test" },
    });
    expect(cancelled.data).toMatchObject({ runId, requested: true });
    const all = await followed;
    expect(all.at(-1)).toEqual({ event: "end", data: { runId, status: "cancelled" } });
    expect(all.map((event) => (event.data as { type?: string }).type)).toContain(
      "cancel-requested",
    );
    expect((await streamed).at(-1)).toEqual({ event: "end", data: { runId } });
    const settled = await client.GET("/v1/runs/{runId}", {
      params: { path: { runId }, query: { waitMs: 30_000 } },
    });
    expect(settled.data!.status).toBe("cancelled");
  });

  it("lists the waitpoints a run waits on, refuses a wrong answer, takes the right one once", async () => {
    const { data } = await client.POST("/v1/runs", { body: { agent: "approver", input: null } });
    const runId = data!.runId;
    const waitpoint = await eventually(async () => {
      const page = await client.GET("/v1/waitpoints", { params: { query: { runId } } });
      return page.data!.items[0];
    });
    expect(waitpoint).toMatchObject({ runId, agent: "approver", question: "Ship it?" });
    const answer = (body: { answer: unknown; answeredBy?: string }) =>
      client.POST("/v1/waitpoints/{token}/answer", {
        params: { path: { token: waitpoint.token } },
        body,
      });
    const wrong = await answer({ answer: { approve: "yes" } });
    expect(wrong.response.status).toBe(400);
    expect(wrong.error!.error.code).toBe("invalid_answer");
    const right = await answer({ answer: { approve: true, note: "ok" }, answeredBy: "ada" });
    expect(right.data).toMatchObject({ runId, token: waitpoint.token });
    const twice = await answer({ answer: { approve: true, note: "again" } });
    expect(twice.response.status).toBe(409);
    expect(twice.error!.error.code).toBe("waitpoint_answered");
    const settled = await client.GET("/v1/runs/{runId}", {
      params: { path: { runId }, query: { waitMs: 30_000 } },
    });
    expect(settled.data).toMatchObject({ status: "succeeded", text: "The person answered." });
  });

  it("answers an unknown run 404 and a wait past 60 s 400, coded", async () => {
    const unknown = await client.GET("/v1/runs/{runId}", {
      params: { path: { runId: "R01M94RNPH4083B3YZGN9GMWQ82NS" } },
    });
    expect(unknown.response.status).toBe(404);
    expect(unknown.error!.error.code).toBe("not_found");
    const tooLong = await client.GET("/v1/runs/{runId}", {
      params: { path: { runId: "R01M94RNPH4083B3YZGN9GMWQ82NS" }, query: { waitMs: 60_001 } },
    });
    expect(tooLong.response.status).toBe(400);
    expect(tooLong.error!.error.code).toBe("invalid_request");
  });

  it("answers a path naming no run 404 alike, whether its id was never fired or is no run id, as collect does", async () => {
    const ids = ["R01M94RNPH4083B3YZGN9GMWQ82NS", "not-a-run"];
    for (const runId of ids) {
      const path = { path: { runId } };
      const answers = [
        await client.GET("/v1/runs/{runId}", { params: path }),
        await client.GET("/v1/runs/{runId}/events", { params: path }),
        await client.GET("/v1/runs/{runId}/stream", { params: path }),
        await client.POST("/v1/runs/{runId}/cancel", { params: path, body: {} }),
      ];
      for (const answer of answers) {
        expect(answer.response.status, `${answer.response.url}`).toBe(404);
        // A run the request only asked about: neither the fix nor the runId of a fire refused after firing.
        expect(answer.error).toEqual({
          error: { code: "not_found", message: expect.any(String), retryable: false },
        });
      }
    }
    const collected = await client.POST("/v1/runs/collect", { body: { runIds: ids } });
    expect(collected.data!.results.map((result) => result.error?.code)).toEqual([
      "not_found",
      "not_found",
    ]);
  });

  it("serves its document, and the probes and metrics beside /v1", async () => {
    const served = await (await fetch(`${stack.url}/v1/openapi.json`)).json();
    expect(served).toEqual(openApiDocument());
    expect((await fetch(`${stack.url}/livez`)).status).toBe(200);
    expect(await (await fetch(`${stack.url}/readyz`)).text()).toBe("ok\n");
    expect(await (await fetch(`${stack.url}/metrics`)).text()).toContain("errand_api_open_streams");
  });
});
