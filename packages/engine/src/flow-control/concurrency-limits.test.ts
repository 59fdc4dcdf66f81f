/**
 * Fleet-wide concurrency limits, across real worker processes: with a limit
 * of 2 per concurrency key and three workers of two slots each, never more
 * than 2 runs of a key run at once (read from the runs' logs: each run's
 * `run-started` to its terminal event), while the runs of another key run
 * beside them; with a limit of 1 on an agent, its runs run one at a time.
 * A run refused a slot waits in the queue, not on a worker: another key's run
 * takes the worker's free slot while the refused runs wait. A worker killed
 * while it holds a slot does not keep it: its lease lapses.
 */
import { describe, expect } from "vitest";
import { type EngineFixture, FAST_TAKEOVER } from "../test-support/engine-fixture.js";
import { engineTest } from "../test-support/engine-test.js";
import { intervalOf, mostAtOnce, type RanInterval } from "../test-support/ran-intervals.js";
import { TEST_AGENTS } from "../test-support/test-agents.js";
import type { FlowControlOptions } from "./flow-options.js";

const it = engineTest("flow-limits");

/** Three worker processes start one after the other: slow on a busy machine. */
const WORKER_FLEET_TIMEOUT_MS = 180_000;

it.afterEach(({ fx }) => fx.killWorkers());

async function startWorkers(
  fx: EngineFixture,
  flowControl: FlowControlOptions,
  count = 3,
): Promise<void> {
  for (let index = 0; index < count; index++) {
    await fx.spawn(`flow-${index}`, { concurrency: 2, flowControl, ...FAST_TAKEOVER });
  }
}

async function fireSlowRuns(
  fx: EngineFixture,
  count: number,
  sleepMs: number,
  concurrencyKey?: string,
) {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const { runId } = await fx.errand.fire({
        agent: TEST_AGENTS.plain,
        input: { script: [{ sleepMs, say: "done" }] },
        ...(concurrencyKey === undefined ? {} : { concurrencyKey }),
      });
      return runId;
    }),
  );
}

async function ranIntervals(fx: EngineFixture, runIds: readonly string[]): Promise<RanInterval[]> {
  return Promise.all(
    runIds.map(async (runId) => {
      const events = await fx.waitForEvent(runId);
      expect(events.at(-1)?.type).toBe("finished");
      return intervalOf(runId, events);
    }),
  );
}

describe("fleet-wide concurrency limits", () => {
  it(
    "runs at most 2 runs of a key at once across 3 workers, and other keys beside them",
    async ({ fx }) => {
      await startWorkers(fx, { keyConcurrency: [{ key: "tenant-*", limit: 2 }], recheckMs: 100 });
      const [busy, other] = await Promise.all([
        fireSlowRuns(fx, 8, 400, "tenant-a"),
        fireSlowRuns(fx, 2, 400, "tenant-b"),
      ]);
      const busyRan = await ranIntervals(fx, busy);
      const otherRan = await ranIntervals(fx, other);

      expect(mostAtOnce(busyRan)).toBe(2);
      expect(mostAtOnce(otherRan)).toBeLessThanOrEqual(2);
      // The key's runs were spread over the fleet, yet the fleet ran more than the key's limit at once.
      expect(new Set(busyRan.map((ran) => ran.workerId)).size).toBeGreaterThan(1);
      expect(mostAtOnce([...busyRan, ...otherRan])).toBeGreaterThan(2);
      // Every lease was given back: a worker gives it back just after the run's last event, so
      // allow it 5 s, well within the lease's own life (15 s, renewed every 5 s), so a lease
      // never given back cannot lapse meanwhile.
      await expect
        .poll(() => fx.redis.exists(`${fx.prefix}:{flow}:lease:key:tenant-a`), { timeout: 5_000 })
        .toBe(0);
    },
    WORKER_FLEET_TIMEOUT_MS,
  );

  it(
    "runs an agent limited to 1 one run at a time across the fleet",
    async ({ fx }) => {
      await startWorkers(fx, { agentConcurrency: { [TEST_AGENTS.plain]: 1 }, recheckMs: 100 });
      const runIds = await fireSlowRuns(fx, 4, 200);
      expect(mostAtOnce(await ranIntervals(fx, runIds))).toBe(1);
    },
    WORKER_FLEET_TIMEOUT_MS,
  );

  it(
    "keeps a refused run in the queue, not on a worker: another key's run takes the free slot at once",
    async ({ fx }) => {
      // One worker of two slots, a limit of 1 on each key: one run of the busy key runs, and its
      // other runs are refused. Were they holding the second slot while they waited, the other
      // key's run would start only once the busy key's first run ended.
      await startWorkers(
        fx,
        { keyConcurrency: [{ key: "tenant-*", limit: 1 }], recheckMs: 100 },
        1,
      );
      const [first, ...waiting] = await fireSlowRuns(fx, 4, 3_000, "tenant-busy");
      await fx.waitForEvent(first!, (event) => event.type === "run-started");
      const [other] = await fireSlowRuns(fx, 1, 10, "tenant-quiet");
      const otherRan = (await ranIntervals(fx, [other!]))[0]!;
      const busyRan = await ranIntervals(fx, [first!, ...waiting]);

      expect(mostAtOnce(busyRan)).toBe(1);
      expect(otherRan.endedAt).toBeLessThan(busyRan[0]!.endedAt);
    },
    WORKER_FLEET_TIMEOUT_MS,
  );

  it("gives a killed worker's slot back once its lease lapses", async ({ fx }) => {
    const flowControl = {
      keyConcurrency: [{ key: "solo", limit: 1 }],
      leaseMs: 1_000,
      recheckMs: 100,
    };
    const doomed = await fx.spawn("flow-doomed", { flowControl, ...FAST_TAKEOVER });
    const [stuck] = await fireSlowRuns(fx, 1, 60_000, "solo");
    await doomed.waitForLine(
      (line) => line.msg === "model request" && line.runId === stuck,
      "the slow run's model request",
    );
    doomed.signal("SIGKILL");
    await doomed.exited;
    await fx.spawn("flow-survivor", { flowControl, ...FAST_TAKEOVER });
    const [next] = await fireSlowRuns(fx, 1, 10, "solo");
    const events = await fx.waitForEvent(next!);
    expect(events.at(-1)?.type).toBe("finished");
  });
});
