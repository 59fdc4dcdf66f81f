/**
 * A client whose Redis is not there (a closed port) never hangs: `fire`,
 * `result`, `collect`, `list` and `events` each end with `redis_unavailable`
 * (retryable, naming the Redis with its password redacted, and the fix)
 * once their patience has passed, never a raw ioredis error.
 */
import { randomBytes } from "node:crypto";
import { ErrandError, newRunId } from "@errand/core";
import { noopLogger } from "@errand/runtime/ops";
import { findFreePort } from "@errand/testing";
import { describe, expect, it } from "vitest";
import { CLIENT_PATIENCE_MS } from "../redis/client-patience.js";
import { createErrand } from "./client.js";

/** How long past its patience a call may take to end on a loaded machine. */
const SLACK_MS = 10_000;

/** How `call` ended, and after how long. */
async function ending(call: () => Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const startedAt = Date.now();
  try {
    const value = await call();
    return { error: new Error(`resolved with ${JSON.stringify(value)}`), ms: 0 };
  } catch (error) {
    return { error, ms: Date.now() - startedAt };
  }
}

describe("a client against a closed port", () => {
  it(
    "ends fire, result, collect, list and events with redis_unavailable within their patience",
    async () => {
      const port = await findFreePort();
      const errand = createErrand({
        connection: `redis://ada:s3cret-pass@127.0.0.1:${port}`,
        logger: noopLogger,
      });
      const runId = newRunId({ shard: 0, nowMs: Date.now(), random: randomBytes(10) });
      try {
        const endings = await Promise.all([
          ending(() => errand.fire({ agent: "researcher", input: "Lyon" })),
          ending(() => errand.result(runId)),
          ending(() => errand.result(runId, { waitMs: 2_000 })),
          ending(() => errand.collect([runId])),
          ending(() => errand.list()),
          ending(async () => {
            for await (const event of errand.events(runId)) return event;
          }),
        ]);
        for (const { error, ms } of endings) {
          expect(error).toBeInstanceOf(ErrandError);
          const coded = error as ErrandError;
          expect(coded.code, coded.message).toBe("redis_unavailable");
          expect(coded.retryable).toBe(true);
          expect(coded.message).toContain(`redis://ada:[redacted]@127.0.0.1:${port}`);
          expect(coded.message).not.toContain("s3cret-pass");
          expect(coded.message).toContain("Fix: make sure Redis runs and is reachable");
          expect(ms).toBeLessThan(CLIENT_PATIENCE_MS + 2_000 + SLACK_MS);
        }
        // The calls that do not wait waited out their patience before giving up.
        const [fire, , , collect, list] = endings;
        for (const { ms } of [fire!, collect!, list!]) {
          expect(ms).toBeGreaterThanOrEqual(CLIENT_PATIENCE_MS - 1_000);
        }
      } finally {
        await errand.close();
      }
    },
    2 * (CLIENT_PATIENCE_MS + SLACK_MS),
  );
});
