/**
 * Runs collected once, for tests of what reads see: a collector is started,
 * the runs' logs are written and their parents' children recorded (as `fire`
 * does), and the collector stops once everything is collected. Test-only: not exported.
 */
import { type Collector, createCollector } from "../create-collector.js";
import { waitUntilIndexed } from "./indexed-state.js";
import { linkChildren, type PlannedRun, settlingRunIds, writeRuns } from "./planned-runs.js";
import { type EngineRedisFixture, type PrefixedStore, TEST_SHARDS } from "./redis-fixture.js";

/** Starts a fast-polling collector (no reaper) on the scope's prefix; stop it when done. */
export async function startTestCollector(
  fx: EngineRedisFixture,
  scope: PrefixedStore,
): Promise<Collector> {
  const collector = createCollector({
    connection: fx.url,
    prefix: scope.prefix,
    shards: TEST_SHARDS,
    blockMs: 100,
    reaper: false,
  });
  await collector.start();
  return collector;
}

/** Writes `runs` (their first `upTo` events, default all) and collects them. */
export async function indexPlanned(
  fx: EngineRedisFixture,
  scope: PrefixedStore,
  runs: readonly PlannedRun[],
  { from, upTo }: { from?: number; upTo?: number } = {},
): Promise<void> {
  const collector = await startTestCollector(fx, scope);
  try {
    await writeRuns(scope.store, runs, {
      ...(from === undefined ? {} : { from }),
      ...(upTo === undefined ? {} : { upTo }),
    });
    await linkChildren(fx.redis, scope.keys, runs);
    const settled = upTo === undefined ? settlingRunIds(runs) : [];
    await waitUntilIndexed(fx.redis, scope.keys, settled, TEST_SHARDS);
  } finally {
    await collector.stop();
  }
}
