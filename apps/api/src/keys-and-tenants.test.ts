/**
 * Keys on `/v1`, over real HTTP on an API told to ask for keys on loopback
 * too: a missing or wrong key is 401 and says nothing more; a read-only key
 * cannot fire, cancel or answer (403); a key of tenant B meets tenant A's
 * runs as unknown ones on every endpoint that names a run (get, events as a
 * page and as a stream, deltas, cancel, answer: 404 as for an id never
 * fired), and does not find them in a list, a collect or the waitpoints;
 * a revoked key is refused within a second; a key past its requests a
 * minute gets 429 with `Retry-After`.
 */
import { createAccessKeys } from "@errand/engine";
import { noopLogger } from "@errand/runtime/ops";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiStack, startApiStack } from "./test-support/api-stack.js";

let stack: ApiStack;
let keys: ReturnType<typeof createAccessKeys>;
/** Keys by name. */
const key: Record<string, string> = {};

beforeAll(async () => {
  stack = await startApiStack({ keysOnLoopback: true });
  keys = createAccessKeys({ connection: stack.redisUrl, prefix: stack.prefix, logger: noopLogger });
  const all = ["fire", "read", "cancel", "answer"] as const;
  key.a = (await keys.create({ scopes: all, tenant: "acme" })).key;
  key.b = (await keys.create({ scopes: all, tenant: "globex" })).key;
  key.reader = (await keys.create({ scopes: ["read"] })).key;
  key.revoked = (await keys.create({ scopes: all })).key;
  key.slow = (await keys.create({ scopes: ["read"], requestsPerMinute: 3 })).key;
});
afterAll(async () => {
  await keys?.close();
  await stack?.stop();
});

/** A request to the API with `as`'s key (none for `undefined`). */
async function call(
  as: string | undefined,
  method: string,
  path: string,
  options: { body?: unknown; accept?: string } = {},
): Promise<{
  status: number;
  body: { error?: { code: string; message: string } } & Record<string, unknown>;
  headers: Headers;
}> {
  const headers: Record<string, string> = {};
  if (as !== undefined) headers.authorization = `Bearer ${as}`;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  if (options.accept !== undefined) headers.accept = options.accept;
  const response = await fetch(`${stack.url}${path}`, {
    method,
    headers,
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  const body = response.headers.get("content-type")?.includes("json") ? JSON.parse(text) : { text };
  return { status: response.status, body, headers: response.headers };
}

/** A runId of the same shape that was never fired. */
const NEVER_FIRED = "R01M94RNPH4083B3YZGN9GMWQ82NS";

describe("keys on /v1", () => {
  it("answers a missing or wrong key 401, naming no key", async () => {
    const missing = await call(undefined, "GET", "/v1/runs");
    expect(missing.status).toBe(401);
    expect(missing.body.error!.code).toBe("unauthorized");
    expect(missing.headers.get("www-authenticate")).toContain("Bearer");
    const wrong = await call("errand_k_not-a-real-key-at-all", "GET", "/v1/runs");
    expect(wrong.status).toBe(401);
    expect(JSON.stringify(wrong.body)).not.toContain("not-a-real-key");
    const fired = await call(undefined, "POST", "/v1/runs", {
      body: { agent: "greeter", input: { name: "x" } },
    });
    expect(fired.status).toBe(401);
    expect((await call(key.a, "GET", "/v1/runs?tenant=acme")).body.count).toBe(0);
  });

  it("lets a read-only key read, not fire, cancel or answer", async () => {
    expect((await call(key.reader, "GET", "/v1/runs")).status).toBe(200);
    const fire = await call(key.reader, "POST", "/v1/runs", {
      body: { agent: "greeter", input: { name: "x" } },
    });
    expect([fire.status, fire.body.error!.code]).toEqual([403, "forbidden"]);
    const batch = await call(key.reader, "POST", "/v1/runs/batch", {
      body: { runs: [{ agent: "greeter", input: { name: "x" } }] },
    });
    expect(batch.status).toBe(403);
    const cancel = await call(key.reader, "POST", `/v1/runs/${NEVER_FIRED}/cancel`, { body: {} });
    expect(cancel.status).toBe(403);
    const answer = await call(key.reader, "POST", "/v1/waitpoints/some-token/answer", {
      body: { answer: 1 },
    });
    expect(answer.status).toBe(403);
  });

  it("keeps each tenant's runs from the other's key, on every endpoint", async () => {
    const fired = await call(key.a, "POST", "/v1/runs", {
      body: { agent: "approver", input: null },
    });
    expect(fired.status).toBe(201);
    const runId = fired.body.runId as string;
    let token: string | undefined;
    for (let attempt = 0; attempt < 300 && token === undefined; attempt += 1) {
      const page = await call(key.a, "GET", `/v1/waitpoints?runId=${runId}`);
      token = (page.body.items as { token: string }[])[0]?.token;
      if (token === undefined) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(token).toBeDefined();

    const unknownAnswer = (await call(key.b, "GET", `/v1/runs/${NEVER_FIRED}`)).body.error!;
    const asUnknown = (answer: Awaited<ReturnType<typeof call>>) => {
      expect(answer.status).toBe(404);
      expect(answer.body.error!.code).toBe("not_found");
      expect(answer.body.error!.message.replaceAll(runId, NEVER_FIRED)).toBe(unknownAnswer.message);
    };
    asUnknown(await call(key.b, "GET", `/v1/runs/${runId}`));
    asUnknown(await call(key.b, "GET", `/v1/runs/${runId}?waitMs=100`));
    asUnknown(await call(key.b, "GET", `/v1/runs/${runId}/events`));
    asUnknown(
      await call(key.b, "GET", `/v1/runs/${runId}/events`, { accept: "text/event-stream" }),
    );
    asUnknown(await call(key.b, "GET", `/v1/runs/${runId}/stream`));
    asUnknown(await call(key.b, "POST", `/v1/runs/${runId}/cancel`, { body: {} }));
    asUnknown(await call(key.b, "GET", `/v1/waitpoints?runId=${runId}`));
    const answered = await call(key.b, "POST", `/v1/waitpoints/${token}/answer`, {
      body: { answer: { approve: true, note: "not mine" } },
    });
    expect(answered.status).toBe(404);

    const collected = await call(key.b, "POST", "/v1/runs/collect", { body: { runIds: [runId] } });
    expect(collected.body).toMatchObject({
      total: 1,
      failed: 1,
      results: [{ runId, status: "not_found" }],
    });
    const waiting = await call(key.b, "GET", "/v1/waitpoints");
    expect((waiting.body.items as { runId: string }[]).map((item) => item.runId)).not.toContain(
      runId,
    );
    const listed = await call(key.b, "GET", "/v1/runs");
    expect((listed.body.items as { runId: string }[]).map((item) => item.runId)).not.toContain(
      runId,
    );

    // Its own tenant's key sees it, and the run is under that tenant.
    const own = await call(key.a, "GET", `/v1/runs/${runId}`);
    expect(own.body).toMatchObject({ runId, status: "running" });
    const cancelled = await call(key.a, "POST", `/v1/runs/${runId}/cancel`, { body: {} });
    expect(cancelled.body).toMatchObject({ runId, requested: true });
  });

  it("refuses a revoked key within a second", async () => {
    expect((await call(key.revoked, "GET", "/v1/runs")).status).toBe(200);
    const [summary] = (await keys.list()).filter(
      (listed) => listed.tenant === undefined && listed.scopes.length === 4,
    );
    expect(await keys.revoke(summary!.keyId)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 1_050));
    expect((await call(key.revoked, "GET", "/v1/runs")).status).toBe(401);
  });

  it("answers a key past its requests a minute 429 with Retry-After", async () => {
    const statuses: number[] = [];
    let refused: Awaited<ReturnType<typeof call>> | undefined;
    for (let request = 0; request < 4; request += 1) {
      const answer = await call(key.slow, "GET", "/v1/agents");
      statuses.push(answer.status);
      if (answer.status === 429) refused = answer;
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(refused!.body.error).toMatchObject({ code: "rate_limited", retryable: true });
    expect(Number(refused!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  });
});
