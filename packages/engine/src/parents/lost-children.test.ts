/**
 * No parent waits forever: a child whose worker process is SIGKILLed and
 * whose job then fails for good (it may not stall even once), and a child
 * still running past its deadline, are both settled by the collector's
 * reaper; the parent, parked on them, is woken and collects a settled
 * result for each — `worker_lost` and `deadline_exceeded`.
 */
import { describe, expect } from "vitest";
import type { CollectResult } from "../reads/collect.js";
import { parentTest } from "../test-support/engine-test.js";
import { TEST_AGENTS } from "../test-support/test-agents.js";
import type { SpawnResult } from "./spawn-children.js";
import { CHILD, LEAD } from "./test-support/parent-fixture.js";

const it = parentTest("lost-children");

/** A worker process of the test agents (a queue of its own) whose jobs fail at their first stall. */
const DOOMED = {
  maxStalledCount: 0,
  lockDurationMs: 1_000,
  stalledIntervalMs: 500,
};

describe("children that never finish on their own", () => {
  it("reach the parked parent as failed: worker_lost for the lost worker, deadline_exceeded past the deadline", async ({
    pfx,
  }) => {
    const { fx } = pfx;
    const doomed = await fx.spawn("doomed-1", DOOMED);
    await pfx.startWorker({ concurrency: 2, parkRecheckMs: 120_000 });
    const forever = { script: [{ say: "never said", sleepMs: 600_000 }] };
    const { runId: parent } = await fx.errand.fire({
      agent: LEAD,
      input: {
        script: [
          {
            call: [
              {
                tool: "spawn_agents",
                args: {
                  agents: [
                    { agent: TEST_AGENTS.plain, input: forever },
                    { agent: CHILD, input: forever, deadlineMs: 1_500 },
                  ],
                },
              },
            ],
          },
          { call: [{ tool: "collect_agents", args: { wait: true } }] },
          { say: "both accounted for" },
        ],
      },
    });

    // The child on the doomed worker starts; its worker dies; another's stalled check fails its job.
    const started = await doomed.waitForLine(
      (line) => line.msg === "run started" && line.agent === TEST_AGENTS.plain,
      "the lost child's start",
    );
    doomed.signal("SIGKILL");
    await doomed.exited;
    await fx.spawn("doomed-2", DOOMED);

    const events = await fx.waitForEvent(parent);
    expect(events.at(-1)).toMatchObject({ type: "finished", data: { text: "both accounted for" } });
    const [spawned] = (await pfx.toolResults(parent, "spawn_agents")) as SpawnResult[];
    const [lost, late] = spawned!.results.map((item) => item.runId!);
    expect(started.runId).toBe(lost);

    const [collected] = (await pfx.toolResults(parent, "collect_agents")) as CollectResult[];
    expect(collected).toMatchObject({ total: 2, succeeded: 0, failed: 2, pending: 0 });
    const byRunId = new Map(collected!.results.map((result) => [result.runId, result]));
    expect(byRunId.get(lost!)).toMatchObject({
      ok: false,
      status: "failed",
      error: { code: "worker_lost", message: expect.stringMatching(/stalled/) },
      retryable: true,
    });
    expect(byRunId.get(late!)).toMatchObject({
      ok: false,
      status: "failed",
      error: { code: "deadline_exceeded" },
      retryable: false,
    });
  });
});
