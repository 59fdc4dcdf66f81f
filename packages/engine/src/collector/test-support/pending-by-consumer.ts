/**
 * What each consumer of the collectors' group holds pending, for tests that
 * kill or stop a collector. Test-only: not exported.
 */
import { DEFAULT_COLLECTOR_GROUP } from "../consumer-group.js";
import type { EngineRedisFixture } from "./redis-fixture.js";

/** The number of entries each consumer of the group holds pending, over every shard. */
export async function pendingByConsumer(
  fx: EngineRedisFixture,
  streams: readonly string[],
): Promise<Map<string, number>> {
  const held = new Map<string, number>();
  for (const stream of streams) {
    const [, , , consumers] = (await fx.redis.xpending(stream, DEFAULT_COLLECTOR_GROUP)) as [
      number,
      string | null,
      string | null,
      [string, string][] | null,
    ];
    for (const [consumer, count] of consumers ?? []) {
      held.set(consumer, (held.get(consumer) ?? 0) + Number(count));
    }
  }
  return held;
}
