import { existsSync, readdirSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig, type TestProjectInlineConfiguration } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { SOURCE_CONDITIONS } from "./vitest.preset.js";

/** The repository's root, which every path below is relative to. */
const ROOT = fileURLToPath(new URL(".", import.meta.url));

/** The folders of the projects: each holds a `vitest.config.ts` and a `package.json`. */
const PROJECT_DIRS = ["packages", "apps"]
  .flatMap((parent) => readdirSync(join(ROOT, parent)).map((name) => `${parent}/${name}`))
  .concat("test");

/**
 * Test files that run alone, after every other file, one at a time: those
 * that start a Redis Cluster (its failovers wait on node timeouts). Under the
 * load of a second test file beside them, a cluster restart test stalled.
 */
const RUN_ALONE = new Set([
  "apps/bench/src/cluster-bench.test.ts",
  "apps/bench/src/fan-out/fan-out-cluster-bench.test.ts",
  "apps/bench/src/scaling/scaling-bench.test.ts",
  "apps/cli/src/commands/cluster.test.ts",
  "apps/cli/src/commands/worker-shutdown-states.test.ts",
  "packages/engine/src/client/fire-idempotency.test.ts",
  "packages/engine/src/collector/cluster.test.ts",
  "packages/engine/src/queues/queue-shards.test.ts",
  "packages/engine/src/reads/failover-waits.test.ts",
  "packages/engine/src/reads/run-log-follower.test.ts",
  "packages/engine/src/redis/failover.test.ts",
  "packages/engine/src/waitpoints/cluster.test.ts",
  "packages/store/src/cluster.test.ts",
  "packages/store/src/replica-lag.test.ts",
  "packages/testing/src/redis/start-cluster.test.ts",
]);

/**
 * Test files that run two at a time, after the others and before those of
 * {@link RUN_ALONE}: those that restart or kill Redis mid-test, drive the
 * headless browser, or kill a worker and wait for its lock to lapse within a
 * bound. Each has its own Redis, so two of them never share one; they stay
 * out of the others' pool, whose files were never measured beside them.
 */
const RUN_TWO_AT_A_TIME = new Set([
  "apps/cli/src/commands/health.test.ts",
  "apps/cli/src/commands/shutdown-without-redis.test.ts",
  "apps/cli/src/commands/up-redis-restart.test.ts",
  "apps/dashboard/src/budget.browser.test.ts",
  "apps/dashboard/src/evaluations.browser.test.ts",
  "apps/dashboard/src/health.test.ts",
  "apps/dashboard/src/page.browser.test.ts",
  "apps/dashboard/src/stream.browser.test.ts",
  "apps/dashboard/src/time.browser.test.ts",
  "packages/engine/src/budgets/budget-resume.test.ts",
  "packages/engine/src/redis/connection-states.test.ts",
  "packages/engine/src/reads/settled-waiter.test.ts",
  "packages/engine/src/worker/blocking-disconnect.test.ts",
  "packages/engine/src/worker/close-on-signals.test.ts",
  "packages/engine/src/worker/worker-takeover.test.ts",
  "packages/local-redis/src/start-redis.test.ts",
]);

const missingLaneFiles = [...RUN_ALONE, ...RUN_TWO_AT_A_TIME].filter(
  (path) => !existsSync(join(ROOT, path)),
);
if (missingLaneFiles.length > 0) {
  throw new Error(
    `RUN_ALONE or RUN_TWO_AT_A_TIME names test files that do not exist: ${missingLaneFiles.join(", ")}`,
  );
}
const aloneAndTwoAtATime = [...RUN_ALONE].filter((path) => RUN_TWO_AT_A_TIME.has(path));
if (aloneAndTwoAtATime.length > 0) {
  throw new Error(`RUN_ALONE and RUN_TWO_AT_A_TIME both name: ${aloneAndTwoAtATime.join(", ")}`);
}

/**
 * Test files that start before the rest of their lane, in this order: the
 * longest. vitest starts the longest first only by the durations it cached
 * in an earlier run, which a fresh clone (CI) has not: there it goes project
 * by project, the cross-package tests last, and their consumer test (about
 * 58 s) began so late that the other worker ran out of files long before it
 * ended, and the later lanes waited. Of the files run two at a time, the
 * worker takeover test (65 s of the lane's 178, under a load of 10 on 2
 * cores) began last of the engine's and ended the lane alone.
 */
const START_FIRST = [
  "test/consumer/consumer.test.ts",
  "packages/engine/src/worker/worker-takeover.test.ts",
  "apps/cli/src/commands/shutdown-without-redis.test.ts",
];

const misplacedFirstFiles = START_FIRST.filter(
  (path) => !existsSync(join(ROOT, path)) || RUN_ALONE.has(path),
);
if (misplacedFirstFiles.length > 0) {
  throw new Error(
    `START_FIRST names test files that do not exist or run alone: ${misplacedFirstFiles.join(", ")}`,
  );
}

/**
 * vitest's order (group by group, project by project; with a cache of an
 * earlier run, the files that failed first, then the longest), with the
 * files of {@link START_FIRST} moved to the front of their group.
 */
class StartFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const index = START_FIRST.indexOf(relative(ROOT, file.moduleId));
      return index === -1 ? START_FIRST.length : index;
    };
    const group = (file: TestSpecification) => file.project.config.sequence.groupOrder;
    return (await super.sort(files)).toSorted((a, b) => group(a) - group(b) || rank(a) - rank(b));
  }
}

/**
 * How many of the other test files run at once: as many as the cores. Most
 * of them wait (on Redis, child processes, lock and stall timers) more than
 * they compute, and vitest's default (one fewer than the cores) ran one at a
 * time on a 2-core CI machine.
 */
const TEST_FILES_AT_ONCE = availableParallelism();

/**
 * The lanes that run after the others (vitest's default group, 0), in this
 * order, each a group of its own: its files, the suffix of its projects'
 * names (`<package> (two at a time)`), and how many of its files run at once.
 */
const LATER_LANES = [
  { files: RUN_TWO_AT_A_TIME, suffix: "two at a time", atOnce: 2, groupOrder: 1 },
  { files: RUN_ALONE, suffix: "alone", atOnce: 1, groupOrder: 2 },
];

/**
 * The test files under a project's folder, relative to it. The walk leaves
 * out `node_modules` and follows no symbolic link: pnpm links each
 * workspace package into its dependents' `node_modules`, and a recursive
 * `readdirSync` followed those links into every package again and again
 * (1.7 million entries, about 30 s before each vitest run started).
 */
function testFiles(dir: string, under = ""): string[] {
  return readdirSync(join(ROOT, dir, under), { withFileTypes: true }).flatMap((entry) => {
    const path = under === "" ? entry.name : `${under}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : testFiles(dir, path);
    return entry.isFile() && entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

/**
 * A project's folder as projects extending its `vitest.config.ts` (each
 * built on the shared preset, `vitest.preset.ts`): one for each of the
 * {@link LATER_LANES} its files are in (named `<package> (<suffix>)`), and
 * one for the others. Each leaves out the others' files by `exclude`, since
 * an extending project's `include` adds to its base's rather than replacing
 * it.
 */
function splitProject(dir: string): TestProjectInlineConfiguration[] {
  const name: string = JSON.parse(readFileSync(join(ROOT, dir, "package.json"), "utf8")).name;
  const files = testFiles(dir);
  const laneOf = (file: string) => LATER_LANES.find((lane) => lane.files.has(`${dir}/${file}`));
  const base = { extends: `./${dir}/vitest.config.ts`, root: dir };
  const others = { ...base, test: { name, exclude: files.filter((file) => laneOf(file)) } };
  const lanes = LATER_LANES.filter((lane) => files.some((file) => laneOf(file) === lane));
  return [
    others,
    ...lanes.map((lane) => ({
      ...base,
      test: {
        name: `${name} (${lane.suffix})`,
        exclude: files.filter((file) => laneOf(file) !== lane),
        // Each file of a lane in a fresh module graph, whatever its package shares.
        isolate: true,
        maxWorkers: lane.atOnce,
        sequence: { groupOrder: lane.groupOrder },
      },
    })),
  ];
}

/**
 * One vitest run over every package and the cross-package suite, so `npm test`
 * prints one summary. Workspace packages resolve to their TypeScript sources
 * through the `@errand/source` export condition: tests need no build step.
 * Files run {@link TEST_FILES_AT_ONCE} at a time ({@link START_FIRST}'s
 * first), then those of {@link RUN_TWO_AT_A_TIME} two at a time, then those
 * of {@link RUN_ALONE} one at a time.
 */
export default defineConfig({
  resolve: { conditions: SOURCE_CONDITIONS },
  ssr: { resolve: { conditions: SOURCE_CONDITIONS } },
  test: {
    projects: PROJECT_DIRS.flatMap(splitProject),
    maxWorkers: TEST_FILES_AT_ONCE,
    sequence: { sequencer: StartFirstSequencer },
    reporters: ["default", "./test/summary-reporter.ts"],
  },
});
