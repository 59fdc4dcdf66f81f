/**
 * Every root that takes a `connection` refuses one that names no Redis —
 * `undefined` (an unset `REDIS_URL` passed as is), `null` or an empty URL —
 * with `redis_unavailable`, before opening anything: ioredis would read it
 * as `localhost:6379`, someone else's Redis.
 */
import { isErrandError } from "@errand/core";
import { defineAgent, scriptedModel } from "@errand/runtime";
import { describe, expect, it } from "vitest";
import { createErrand } from "../client/client.js";
import { createCollector } from "../collector/create-collector.js";
import { createLogger } from "../logger.js";
import { createRunReads } from "../reads/create-run-reads.js";
import { createReaper } from "../reaper/create-reaper.js";
import { createWorker } from "../worker/create-worker.js";
import { type ConnectionInput, openConnection, requireConnection } from "./connection.js";

/**
 * What a JavaScript caller hands over with `process.env.REDIS_URL` unset, and
 * its kin: how a test names it, the connection, and how the refusal names it.
 */
const NO_REDIS: [string, ConnectionInput, string][] = [
  ["undefined", undefined as unknown as ConnectionInput, "undefined"],
  ["null", null as unknown as ConnectionInput, "null"],
  ["an empty URL", "", "an empty string"],
  ["a blank URL", "  ", "an empty string"],
];

const greeter = defineAgent({
  name: "greeter",
  instructions: "Follow your script.",
  model: scriptedModel(),
  scriptFromInput: true,
});

/** The refusal `attempt` throws, for the caller to inspect. */
function refusalOf(attempt: () => unknown): unknown {
  try {
    attempt();
  } catch (error) {
    return error;
  }
  throw new Error("expected a refusal, got none");
}

function expectNoRedisGiven(error: unknown, given: string): void {
  expect(isErrandError(error, "redis_unavailable")).toBe(true);
  expect((error as Error).message).toBe(
    `no Redis given: connection is ${given} (is REDIS_URL set?); pass a redis://host:port URL (redis+cluster://host1:port1,host2:port2 for a Redis Cluster), ioredis options or an ioredis client`,
  );
  expect((error as { retryable: boolean }).retryable).toBe(false);
}

describe.each(NO_REDIS)("a connection that is %s", (_label, connection, given) => {
  it("is refused by createErrand, createCollector, createReaper and createRunReads at once", () => {
    expectNoRedisGiven(
      refusalOf(() => createErrand({ connection })),
      given,
    );
    expectNoRedisGiven(
      refusalOf(() => createCollector({ connection })),
      given,
    );
    expectNoRedisGiven(
      refusalOf(() => createReaper({ connection })),
      given,
    );
    expectNoRedisGiven(
      refusalOf(() => createRunReads({ connection })),
      given,
    );
  });

  it("is refused by createWorker before it registers anything", async () => {
    const error = await createWorker({ connection, agents: [greeter] }).catch(
      (refused: unknown) => refused,
    );
    expectNoRedisGiven(error, given);
  });

  it("is refused wherever a connection is opened", () => {
    expectNoRedisGiven(
      refusalOf(() => requireConnection(connection)),
      given,
    );
    expectNoRedisGiven(
      refusalOf(() => openConnection(connection, { logger: createLogger(), name: "test" })),
      given,
    );
  });
});

it("keeps URLs, ioredis options and clients as given", () => {
  const options = { host: "127.0.0.1", port: 1 };
  expect(requireConnection("redis://127.0.0.1:1")).toBe("redis://127.0.0.1:1");
  expect(requireConnection(options)).toBe(options);
  expect(requireConnection({})).toEqual({});
});
