/**
 * `waitpoints.list` a page at a time, against real Redis: every waitpoint
 * waiting across the shards is listed once, oldest first (ties in the same
 * millisecond too), a closed one is dropped from the index as it is met,
 * and a cursor that `list` did not write is refused.
 */
import { isErrandError } from "@errand/core";
import { describe, expect } from "vitest";
import type { EngineFixture } from "../test-support/engine-fixture.js";
import { engineTest } from "../test-support/engine-test.js";
import { writeParkedRun } from "../test-support/parked-run.js";
import type { WaitingWaitpoint } from "./waiting.js";
import { addWaiting } from "./waiting-index.js";

const it = engineTest("waiting-pages");

/** The fixture's index of waiting waitpoints. */
function waitingIndexOf(fx: EngineFixture) {
  return { redis: fx.redis, keys: fx.errand.keys };
}

/** Parks a run on `shard`, created at `ms`, and lists its waitpoint; resolves with its token. */
async function parkedAt(fx: EngineFixture, shard: number, ms: number): Promise<string> {
  const { token } = await writeParkedRun(fx.errand.store, { shard, at: new Date(ms) });
  await addWaiting(waitingIndexOf(fx), token, ms);
  return token;
}

describe("waitpoints.list, a page at a time", () => {
  it("lists every waiting waitpoint once, oldest first, and drops a closed one from the index", async ({
    fx,
  }) => {
    const base = Date.now() - 60_000;
    const shards = fx.errand.store.shards;
    const open: { ms: number; token: string }[] = [];
    for (let i = 0; i < 9; i++) {
      // Three of them in one millisecond, on different shards.
      const ms = i < 3 ? base : base + i;
      open.push({ ms, token: await parkedAt(fx, i % shards, ms) });
    }
    const closed = await parkedAt(fx, 3 % shards, base + 4);
    await fx.errand.waitpoints.complete(closed, "yes");
    // The answer took it off the index; put it back, as a crash could have left it.
    await addWaiting(waitingIndexOf(fx), closed, base + 4);

    const listed: WaitingWaitpoint[] = [];
    const pageSizes: number[] = [];
    let cursor: string | undefined;
    do {
      const page = await fx.errand.waitpoints.list({
        limit: 4,
        ...(cursor === undefined ? {} : { cursor }),
      });
      expect(page.count).toBe(page.items.length);
      expect(page.hasMore).toBe(page.nextCursor !== undefined);
      listed.push(...page.items);
      pageSizes.push(page.count);
      cursor = page.nextCursor;
    } while (cursor !== undefined);

    const expected = [...open]
      .sort((a, b) => a.ms - b.ms || (a.token < b.token ? -1 : 1))
      .map(({ token }) => token);
    expect(listed.map((waitpoint) => waitpoint.token)).toEqual(expected);
    expect(pageSizes).toEqual([4, 4, 1]);
    expect(listed[0]).toMatchObject({ agent: "asker", question: "Go?" });
    const index = fx.errand.keys.waitingWaitpoints;
    const indexed = await Promise.all(
      Array.from({ length: shards }, (_, shard) => fx.redis.zrange(index(shard), 0, -1)),
    );
    expect(indexed.flat()).not.toContain(closed);
    expect(indexed.flat().sort()).toEqual([...expected].sort());
  });

  it("refuses a cursor it did not write, and a limit that is not a whole number", async ({
    fx,
  }) => {
    for (const options of [{ cursor: "not-a-cursor" }, { limit: 1.5 }]) {
      const refused = await fx.errand.waitpoints.list(options).catch((error: unknown) => error);
      expect(isErrandError(refused) && refused.code).toBe("invalid_spec");
    }
  });
});
