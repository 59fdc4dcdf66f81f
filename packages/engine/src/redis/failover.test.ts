/**
 * Failover with replicas: on a real Redis Cluster of 3 masters and 3
 * replicas, a master is SIGKILLed while runs go and its replica promoted.
 * Every run settles as designed, none with two terminal events or two
 * outputs; with `durability: "replicated"` every fire and every settling
 * append waited for a replica on its slot's master (WAIT runs there: a
 * replica refuses it), so the runs fired right before the SIGKILL are on
 * the promoted replica without waiting for it to catch up.
 */
import {
  foldRun,
  isErrandError,
  isTerminalEventType,
  type RunEvent,
  settleRun,
} from "@errand/core";
import { defineAgent, scriptedModel } from "@errand/runtime";
import { uniqueKeyPrefix } from "@errand/testing";
import { describe, expect, it } from "vitest";
import type { FireResult } from "../client/fire-spec.js";
import { startErrandStack } from "../test-support/errand-stack.js";
import { captureLogs } from "../test-support/log-capture.js";
import { useReplicatedCluster, waitCalls } from "../test-support/replicated-cluster.js";

/** An agent that plays its script and touches no Redis of its own: only the engine meets the failover. */
const scripted = defineAgent({
  name: "failover-scripted",
  instructions: "Follow your script.",
  model: scriptedModel(),
  scriptFromInput: true,
});

/** Runs fired before the failover, and as many while it goes on. */
const RUNS_EACH_SIDE = 12;

const fixture = useReplicatedCluster();

describe("a master SIGKILLed under load, its replica promoted", () => {
  it('settles every run once, durability "replicated" waiting on the slot\'s master', async () => {
    const prefix = uniqueKeyPrefix("failover");
    const logs = captureLogs();
    const stack = await startErrandStack({
      connection: fixture.url,
      prefix,
      durability: "replicated",
      logger: logs.logger,
      worker: { agents: [scripted], concurrency: 8, retry: { baseDelayMs: 50, maxDelayMs: 500 } },
    });
    const { errand } = stack;
    try {
      const fire = (i: number) =>
        errand.fire({
          agent: scripted.name,
          input: { script: [{ sleepMs: 300, say: `run ${i} done` }] },
          idempotencyKey: `run-${i}`,
        });
      /**
       * Fires run `i` until a replica confirms it. Until the killed master is
       * back as its replica, the promoted one has none: the fire is refused
       * with its runId (fired, not confirmed), and firing it again under its
       * key answers that same run.
       */
      const fireConfirmed = async (i: number): Promise<string> => {
        let named: string | undefined;
        for (let tries = 0; ; tries++) {
          const fired: FireResult | Error = await fire(i).catch((error: Error) => error);
          if (!(fired instanceof Error)) {
            if (named !== undefined) expect(fired.runId).toBe(named);
            return fired.runId;
          }
          const runId = isErrandError(fired, "redis_unavailable")
            ? fired.details?.runId
            : undefined;
          if (typeof runId !== "string" || tries >= 120) throw fired;
          named ??= runId;
          expect(runId).toBe(named);
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      };
      // No wait for the replicas to catch up: a replicated fire is answered once one has its run.
      const before = await Promise.all(Array.from({ length: RUNS_EACH_SIDE }, (_, i) => fire(i)));
      const failingOver = fixture.cluster.failOver(0);
      const during: string[] = [];
      for (let i = 0; i < RUNS_EACH_SIDE; i++) {
        during.push(await fireConfirmed(RUNS_EACH_SIDE + i));
      }
      const failover = await failingOver;
      expect(failover.promotedPort).not.toBe(failover.killedPort);

      const runIds = [...before.map((run) => run.runId), ...during];
      for (const runId of runIds) {
        const result = await errand.result(runId, { waitMs: 120_000 });
        expect(result?.status, `${runId}: ${JSON.stringify(result?.error)}`).toBe("succeeded");
        const events: RunEvent[] = [];
        for await (const event of errand.events(runId)) events.push(event);
        expect(events.filter((event) => isTerminalEventType(event.type))).toHaveLength(1);
        expect(events.filter((event) => event.type === "output-recorded").length).toBeLessThan(2);
        expect(settleRun(foldRun(events))?.status).toBe("succeeded");
      }
      expect(await waitCalls(fixture.cluster)).toBeGreaterThan(0);
    } finally {
      await stack.stop();
    }
  }, 300_000);
});
