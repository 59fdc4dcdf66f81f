/**
 * A rolling deploy with real worker processes (docs/architecture/firing.md#versions): v1 workers hold multi-step runs, v2 workers start, the v1
 * workers are drained (SIGTERM) and stop. Every run fired for v1 finishes on
 * a v1 worker or, once no v1 worker has been live for the grace period,
 * settles `agent_version_unavailable`; none is started or resumed by a v2
 * worker, which hands the jobs of v1 runs back untouched.
 */
import type { RunEvent } from "@errand/core";
import { afterAll, describe, expect } from "vitest";
import { type Collector, createCollector } from "../collector/create-collector.js";
import { createLogger } from "../logger.js";
import { type EngineFixture, FAST_TAKEOVER } from "../test-support/engine-fixture.js";
import { engineTest } from "../test-support/engine-test.js";
import { AnswerSchema, TEST_AGENTS } from "../test-support/test-agents.js";
import type { WorkerProcess } from "../test-support/worker-processes.js";

const it = engineTest("rolling-deploy");

let collector: Collector;

/** How long runs of a version wait for a worker of it in this test. */
const VERSION_GRACE_MS = 5_000;

it.beforeAll(async ({ fx }) => {
  collector = createCollector({
    connection: fx.server.url,
    prefix: fx.prefix,
    logger: createLogger({ level: "silent" }),
    reaper: { intervalMs: 500, versionGraceMs: VERSION_GRACE_MS },
  });
  await collector.start();
});
it.afterEach(({ fx }) => fx.killWorkers());
afterAll(async () => {
  await collector?.stop();
});

/** Three steps, each after `sleepMs`: bump, bump, then the answer. */
function threeSteps(answer: string, sleepMs: number) {
  return [
    { call: [{ tool: "bump", args: {} }] },
    { sleepMs, call: [{ tool: "bump", args: {} }] },
    { sleepMs, call: [{ tool: "structured_output", args: { answer } }] },
  ];
}

async function fire(fx: EngineFixture, answer: string, sleepMs: number, agentVersion?: string) {
  return fx.errand.fire({
    agent: TEST_AGENTS.structured,
    input: { script: threeSteps(answer, sleepMs) },
    outputSchema: AnswerSchema,
    ...(agentVersion === undefined ? {} : { agentVersion }),
  });
}

function startedBy(events: readonly RunEvent[]): string[] {
  return events.flatMap((event) => (event.type === "run-started" ? [event.data.workerId] : []));
}

function queuedVersion(events: readonly RunEvent[]): string | undefined {
  const queued = events[0];
  return queued?.type === "run-queued" ? queued.data.agentVersion : undefined;
}

function spawnVersion(
  fx: EngineFixture,
  workerId: string,
  agentVersion: string,
): Promise<WorkerProcess> {
  return fx.spawn(workerId, {
    ...FAST_TAKEOVER,
    agentVersion,
    concurrency: 2,
    heartbeatMs: 500,
    graceMs: 1_500,
  });
}

describe("a rolling deploy from v1 to v2", () => {
  it("finishes v1 runs on v1 workers or fails them agent_version_unavailable, never resuming them on v2", async ({
    fx,
  }) => {
    const v1 = [await spawnVersion(fx, "v1-a", "v1"), await spawnVersion(fx, "v1-b", "v1")];
    const shortV1 = [await fire(fx, "short-1", 200), await fire(fx, "short-2", 200)];
    const longV1 = [await fire(fx, "long-1", 120_000), await fire(fx, "long-2", 120_000)];
    for (const run of [...shortV1, ...longV1]) {
      expect(queuedVersion(await fx.errand.store.readLog(run.runId))).toBe("v1");
    }
    // The long runs are in flight on v1 workers, inside their slow second step.
    for (const { runId } of longV1) {
      await Promise.any(
        v1.map((worker) =>
          worker.waitForLine(
            (line) => line.msg === "model request" && line.runId === runId && line.step === 2,
            `step 2 of ${runId}`,
          ),
        ),
      );
    }

    const v2 = [await spawnVersion(fx, "v2-a", "v2"), await spawnVersion(fx, "v2-b", "v2")];
    const newest = await fire(fx, "on-v2", 0);
    const pinnedV1 = [await fire(fx, "pinned-1", 0, "v1"), await fire(fx, "pinned-2", 0, "v1")];

    for (const worker of v1) worker.signal("SIGTERM");
    for (const worker of v1) expect(await worker.exited).toMatchObject({ code: 0 });

    const v1Ids = new Set(v1.map((worker) => worker.workerId));
    const v2Ids = new Set(v2.map((worker) => worker.workerId));
    const v1Runs = [...shortV1, ...longV1, ...pinnedV1];
    const settled = new Map<string, RunEvent[]>();
    for (const { runId } of v1Runs) settled.set(runId, await fx.waitForEvent(runId));

    for (const [runId, events] of settled) {
      expect(queuedVersion(events), runId).toBe("v1");
      for (const workerId of startedBy(events)) expect(v1Ids.has(workerId), workerId).toBe(true);
      const last = events.at(-1);
      if (last?.type === "failed") {
        expect(last.data.code, runId).toBe("agent_version_unavailable");
      } else {
        expect(last?.type, runId).toBe("finished");
      }
    }
    for (const { runId } of longV1) {
      const last = settled.get(runId)?.at(-1);
      expect(last?.type === "failed" ? last.data.code : last?.type).toBe(
        "agent_version_unavailable",
      );
      // It had started on a v1 worker and been left to its lock by the drain.
      expect(startedBy(settled.get(runId) ?? []).length).toBeGreaterThan(0);
    }
    const finishedOnV1 = [...settled.values()].filter(
      (events) => events.at(-1)?.type === "finished",
    );
    expect(finishedOnV1.length).toBeGreaterThanOrEqual(shortV1.length);
    // The v2 workers met jobs of v1 runs and handed them back without writing.
    expect(
      v2.some((worker) =>
        worker.lines.some((line) => line.msg === "run of another agent version handed back"),
      ),
    ).toBe(true);

    const newestEvents = await fx.waitForEvent(newest.runId);
    expect(queuedVersion(newestEvents)).toBe("v2");
    expect(newestEvents.at(-1)?.type).toBe("finished");
    for (const workerId of startedBy(newestEvents)) expect(v2Ids.has(workerId)).toBe(true);
  }, 120_000);
});
