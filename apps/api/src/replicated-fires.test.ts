/**
 * An API told `durability: "replicated"`, over real HTTP on a real Redis
 * that has no replica at first: a fire no replica confirmed in time is
 * answered 503 `redis_unavailable`, retryable, naming its `runId`, with the
 * fix to send the request again under the same Idempotency-Key (a batch
 * item likewise keeps its `runId`). Once a replica follows the Redis, the
 * same requests answer those runs (deduplicated), never second ones.
 */
import { type RedisServer, startReplicaOf } from "@errand/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiStack, startApiStack } from "./test-support/api-stack.js";

let stack: ApiStack;
let replica: RedisServer | undefined;

beforeAll(async () => {
  stack = await startApiStack({ durability: "replicated" });
});
afterAll(async () => {
  await stack?.stop();
  await replica?.stop();
});

/** POSTs `body` to `path` under `Idempotency-Key: key`; the status and the parsed answer. */
async function post(path: string, key: string, body: unknown) {
  const response = await fetch(`${stack.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "idempotency-key": key },
    body: JSON.stringify(body),
  });
  // biome-ignore lint/suspicious/noExplicitAny: the test reads the documented fields.
  return { status: response.status, body: (await response.json()) as any };
}

const greeting = { agent: "greeter", input: { name: "Ada" } };

describe('fires with durability "replicated"', () => {
  it("answers a run no replica confirmed with its runId, and the same key answers that run once one does", async () => {
    const refused = await post("/v1/runs", "replicated-one", greeting);
    expect(refused.status).toBe(503);
    const { error } = refused.body;
    expect(error).toMatchObject({ code: "redis_unavailable", retryable: true });
    expect(error.runId).toEqual(expect.any(String));
    expect(error.message).toContain(`run ${error.runId} was fired`);
    expect(error.fix).toContain("send the request again with the same Idempotency-Key");
    expect(error.fix).toContain(`GET /v1/runs/${error.runId}`);

    const batch = await post("/v1/runs/batch", "replicated-batch", { runs: [greeting] });
    expect(batch.status).toBe(200);
    expect(batch.body).toMatchObject({ total: 1, succeeded: 0, failed: 1 });
    const [item] = batch.body.results;
    expect(item).toMatchObject({
      ok: false,
      retryable: true,
      error: { code: "redis_unavailable" },
    });
    expect(item.runId).toEqual(expect.any(String));

    replica = await startReplicaOf(stack.redis);

    const again = await post("/v1/runs", "replicated-one", greeting);
    expect(again).toEqual({
      status: 200,
      body: expect.objectContaining({ runId: error.runId, deduplicated: true }),
    });
    const batchAgain = await post("/v1/runs/batch", "replicated-batch", { runs: [greeting] });
    expect(batchAgain.body).toMatchObject({ total: 1, succeeded: 1, failed: 0 });
    expect(batchAgain.body.results[0]).toMatchObject({
      ok: true,
      runId: item.runId,
      deduplicated: true,
    });
  }, 120_000);
});
