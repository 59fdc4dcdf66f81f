/**
 * The engine's test fixture: one vitest `test` whose fixtures are set up once
 * per test file (`scope: "file"`), on the first test or `beforeAll` that takes
 * them from its context, and torn down after the file's last `afterAll`.
 * Three sizes, each built on the one before:
 *
 * - `redisTest` gives `engineRedis`: a private Redis, clients, prefixed stores;
 * - `engineTest(label)` adds `fx`: a client under a prefix made from `label`,
 *   worker processes (killed at the end), the queue and key counts;
 * - `parentTest(label)` adds `pfx`: a collector and the parent agents' workers.
 *
 * A test file names the size it needs as its `it`, e.g.
 * `const it = engineTest("cancel");`, and takes the fixture from the context:
 * `it("…", async ({ fx }) => { … })`; a file's own setup goes in
 * `it.beforeAll(async ({ fx }) => …)`, which runs after the fixture is up and,
 * like `afterAll`, before it is torn down. Test-only: not exported.
 */
import { test } from "vitest";
import { startEngineRedis } from "../collector/test-support/redis-fixture.js";
import { openParentFixture } from "../parents/test-support/parent-fixture.js";
import { openEngineFixture } from "./engine-fixture.js";

/** A test with a private Redis for its file: `engineRedis`. */
export const redisTest = test.extend(
  "engineRedis",
  { scope: "file" },
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern, and this one has none.
  async ({}, { onCleanup }) => {
    const engineRedis = await startEngineRedis();
    onCleanup(() => engineRedis.stop());
    return engineRedis;
  },
);

/** A test with the engine opened on its file's private Redis: `fx`, keys under a prefix from `label`. */
export function engineTest(label: string) {
  return redisTest.extend("fx", { scope: "file" }, async ({ engineRedis }, { onCleanup }) => {
    const fx = await openEngineFixture(engineRedis, label);
    onCleanup(() => fx.stop());
    return fx;
  });
}

/** An {@link engineTest} with a collector and the parent agents' workers: `pfx`. */
export function parentTest(label: string) {
  return engineTest(label).extend("pfx", { scope: "file" }, async ({ fx }, { onCleanup }) => {
    const pfx = await openParentFixture(fx);
    onCleanup(() => pfx.stop());
    return pfx;
  });
}
