/**
 * Children counted as they settle, against real Redis and a real collector:
 * each settled child of a parent whose children were added to its pending
 * set (as `fire` adds them) is counted once under its status — and once
 * only when its settling entry is delivered again — so the counts add up
 * with the pending children; a parent whose children were linked without
 * (before the counts) has counts that do not add up, which readers tally.
 */
import { isTerminalEventType } from "@errand/core";
import { decodeShardEntry } from "@errand/store/ops";
import { describe, expect } from "vitest";
import { readChildrenCounts } from "../parents/children-counts.js";
import { redisTest } from "../test-support/engine-test.js";
import { startTestCollector } from "./test-support/index-planned.js";
import { waitUntilIndexed } from "./test-support/indexed-state.js";
import {
  linkChildren,
  type PlannedRun,
  planRuns,
  settlingRunIds,
  writeRuns,
} from "./test-support/planned-runs.js";
import { TEST_SHARDS } from "./test-support/redis-fixture.js";

const it = redisTest;

/** The status a planned ending settles to, or pending. */
const STATUS_OF = {
  text: "succeeded",
  output: "succeeded",
  "no-output": "failed",
  failed: "failed",
  cancelled: "cancelled",
  unsettled: "pending",
} as const;

/** The counts `children` should add up to. */
function expectedCounts(children: readonly PlannedRun[]) {
  const counts = { total: children.length, succeeded: 0, failed: 0, cancelled: 0, pending: 0 };
  for (const child of children) counts[STATUS_OF[child.ending]] += 1;
  return counts;
}

describe("children counts", () => {
  it("count each settled child once, however often its entry is delivered", async ({
    engineRedis: fx,
  }) => {
    const scope = fx.prefixed("children-counts");
    const { keys } = scope;
    // Five parents of 12 children each: five and the six endings are coprime, so each parent's children end every way.
    const runs = planRuns({ count: 65, shards: TEST_SHARDS, parents: 5, steps: 1 });
    const [counted, uncounted] = [runs[0]!.runId, runs[1]!.runId];
    const childrenOf = (parent: string) => runs.filter((run) => run.parentRunId === parent);
    await linkChildren(fx.redis, keys, runs);
    // Only the first parent's children are added to its pending set, as fire does now.
    const pendingIds = childrenOf(counted).map((run) => run.runId);
    await fx.redis.sadd(keys.childrenPending(counted), ...pendingIds);
    await writeRuns(scope.store, runs);

    // Every child's settling entry, read before any collector acknowledged (or trimmed) it.
    const streams = Array.from({ length: TEST_SHARDS }, (_, shard) => keys.shardEvents(shard));
    const settlingEntries = (await Promise.all(streams.map((s) => fx.redis.xrange(s, "-", "+"))))
      .flatMap((entries, shard) =>
        entries.map((entry) => ({
          stream: streams[shard]!,
          fields: entry[1],
          decoded: decodeShardEntry(shard, entry),
        })),
      )
      .filter(({ decoded }) => pendingIds.includes(decoded.runId))
      .filter(({ decoded }) => decoded.events?.some((event) => isTerminalEventType(event.type)));
    expect(settlingEntries.length).toBe(
      childrenOf(counted).filter((run) => run.ending !== "unsettled").length,
    );

    const collect = async () => {
      const collector = await startTestCollector(fx, scope);
      try {
        await waitUntilIndexed(fx.redis, keys, settlingRunIds(runs), TEST_SHARDS);
      } finally {
        await collector.stop();
      }
    };
    await collect();
    const expected = expectedCounts(childrenOf(counted));
    expect(expected.pending).toBeGreaterThan(0);
    expect(expected.cancelled).toBeGreaterThan(0);
    expect(await readChildrenCounts({ redis: fx.redis, keys }, counted)).toEqual(expected);
    expect(await readChildrenCounts({ redis: fx.redis, keys }, uncounted)).toBeUndefined();

    // Delivered again: the same entries appended anew, collected by a fresh collector.
    for (const { stream, fields } of settlingEntries) await fx.redis.xadd(stream, "*", ...fields);
    await collect();
    expect(await readChildrenCounts({ redis: fx.redis, keys }, counted)).toEqual(expected);
    expect(await fx.redis.scard(keys.childrenPending(counted))).toBe(expected.pending);
  });
});
