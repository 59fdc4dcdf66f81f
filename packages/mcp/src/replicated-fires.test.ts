/**
 * `start_runs` on a client of `durability: "replicated"`, through the
 * official SDK client, on a real Redis that has no replica at first: an item
 * whose run no replica confirmed in time fails but keeps its `runId` (so
 * nextAction waits for it). Under an idempotency key it is retryable, in
 * retryAction, and its fix says to send it again with that key; without
 * one it is not retryable (sending it again would start a second run) and
 * its fix points at wait_runs. Once a replica follows the Redis, the
 * retryAction answers the same run, deduplicated.
 */
import { type RedisServer, startReplicaOf } from "@errand/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type McpStack, startMcpStack } from "./test-support/mcp-stack.js";

let stack: McpStack;
let replica: RedisServer | undefined;

beforeAll(async () => {
  stack = await startMcpStack({ durability: "replicated" });
});
afterAll(async () => {
  await stack?.stop();
  await replica?.stop();
});

const input = { script: [{ say: "done" }] };

describe('start_runs with durability "replicated"', () => {
  it("keeps the runId of a run no replica confirmed, and its key's retry answers that run", async () => {
    const keyed = { agent: "echo", input, idempotencyKey: "replicated-mcp" };
    const unkeyed = { agent: "echo", input };
    const first = await stack.call("start_runs", { runs: [keyed, unkeyed] });
    expect(first.isError).toBe(false);
    const [withKey, withoutKey] = first.value.results;
    expect(first.value).toMatchObject({ total: 2, succeeded: 0, failed: 2 });

    expect(withKey).toMatchObject({ ok: false, retryable: true });
    expect(withKey.error.code).toBe("redis_unavailable");
    expect(withKey.runId).toEqual(expect.any(String));
    expect(withKey.error.fix).toContain("send this item again with the same idempotencyKey");

    expect(withoutKey).toMatchObject({ ok: false, retryable: false });
    expect(withoutKey.runId).toEqual(expect.any(String));
    expect(withoutKey.error.fix).toContain("wait_runs follows it");

    expect(first.value.nextAction).toEqual({
      tool: "wait_runs",
      args: { runIds: [withKey.runId, withoutKey.runId] },
    });
    expect(first.value.retryAction).toEqual({ tool: "start_runs", args: { runs: [keyed] } });

    replica = await startReplicaOf(stack.redis);

    const again = await stack.call(first.value.retryAction.tool, first.value.retryAction.args);
    expect(again.value).toMatchObject({ total: 1, succeeded: 1, failed: 0 });
    expect(again.value.results[0]).toMatchObject({
      ok: true,
      runId: withKey.runId,
      deduplicated: true,
    });
  }, 120_000);
});
