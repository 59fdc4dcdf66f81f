/**
 * A worker whose append Redis refuses for lack of memory, mid-run: it holds
 * the run — its job stays active and keeps its lock past the lock's
 * duration, though BullMQ's own renewal is refused — and appends the step
 * once Redis has room; the run completes in its first attempt, and no
 * BullMQ attempt is spent. A parent whose `spawn_agents` Redis refuses (out
 * of memory, or unable to persist: `MISCONF`) gets every child it asked for
 * once Redis takes writes again, each fired once. A worker
 * started meanwhile waits for room to register, then runs.
 */
import { foldRun, type RunEventOf, settleRun } from "@errand/core";
import { defineAgent, scriptedModel, type ToolContext } from "@errand/runtime";
import { Queue } from "bullmq";
import { describe, expect } from "vitest";
import { parentTools } from "../parents/parent-tools.js";
import { queueOfAgents } from "../queues/agent-queues.js";
import { readAgentRegistrations } from "../queues/registry.js";
import { FAST_TAKEOVER } from "../test-support/engine-fixture.js";
import { engineTest } from "../test-support/engine-test.js";
import { gatedModel } from "../test-support/gated-model.js";
import { captureLogs } from "../test-support/log-capture.js";
import { exhaustRedisMemory } from "../test-support/redis-memory.js";
import { failRedisSaves } from "../test-support/redis-persistence.js";
import { createWorker } from "./create-worker.js";

const it = engineTest("worker-oom");

describe("a worker whose append Redis refuses for lack of memory", () => {
  it("holds the run, keeps its job's lock, and appends once Redis has room: one attempt, no BullMQ attempt spent", async ({
    fx,
  }) => {
    const logs = captureLogs();
    const gate = gatedModel();
    const agent = defineAgent({ name: "oom-answerer", instructions: "Answer.", model: gate.model });
    const worker = await createWorker({
      connection: fx.server.url,
      prefix: fx.prefix,
      agents: [agent],
      logger: logs.logger,
      lockDuration: FAST_TAKEOVER.lockDurationMs,
      stalledInterval: FAST_TAKEOVER.stalledIntervalMs,
    });
    const queueConnection = fx.redis.duplicate();
    const queue = new Queue(queueOfAgents(fx.prefix, [agent.name]), {
      connection: queueConnection,
      prefix: fx.errand.keys.bullmqPrefix,
    });
    let giveBack: (() => Promise<void>) | undefined;
    try {
      const { runId } = await fx.errand.fire({ agent: agent.name, input: "hello" });
      await gate.inside;
      giveBack = await exhaustRedisMemory(fx.redis);
      gate.release();
      await logs.waitFor(
        (line) =>
          line.msg === "Redis is out of memory: retrying the write until it has room" &&
          line.runId === runId,
      );
      // Three keeps of the lock span more than the lock's duration.
      const keptLocks = () =>
        logs.lines.filter(
          (line) => line.msg === "Redis is out of memory: job locks kept by their expiry",
        );
      await logs.waitFor(() => keptLocks().length >= 3);
      expect(keptLocks().every((line) => (line.lost as unknown[]).length === 0)).toBe(true);
      expect(await queue.getJobState(runId)).toBe("active");
      expect((await queue.getJob(runId))?.attemptsMade).toBe(0);
      expect(await fx.redis.pttl(`${queue.toKey(runId)}:lock`)).toBeGreaterThan(0);

      await giveBack();
      giveBack = undefined;
      const events = await fx.waitForEvent(runId);
      expect(events.map((event) => event.type)).toEqual([
        "run-queued",
        "run-started",
        "model-responded",
        "finished",
      ]);
      expect(settleRun(foldRun(events))).toMatchObject({ status: "succeeded", attempts: 1 });
      await logs.waitFor((line) => line.msg === "Redis has room again: the write went through");
      expect(logs.lines.filter((line) => line.msg === "job failed")).toEqual([]);
      expect(await queue.getJobCounts("failed", "delayed", "wait")).toEqual({
        failed: 0,
        delayed: 0,
        wait: 0,
      });
    } finally {
      await giveBack?.();
      await worker.close();
      await queue.close();
      queueConnection.disconnect();
    }
  });
});

/** Ways Redis refuses a spawn for a while: `refuse` makes it refuse and resolves with what ends it. */
const SPAWN_REFUSALS = [
  {
    refusal: "for lack of memory",
    label: "oom",
    refuse: exhaustRedisMemory,
    waiting: "Redis is out of memory: retrying the write until it has room",
  },
  {
    refusal: "unable to persist (MISCONF)",
    label: "misconf",
    refuse: failRedisSaves,
    waiting:
      "Redis refuses writes because it cannot persist (its last RDB save or AOF write failed: MISCONF): retrying the write until it can persist",
  },
];

describe.each(SPAWN_REFUSALS)(
  "a parent whose spawn_agents Redis refuses $refusal",
  ({ label, refuse, waiting }) => {
    it("fires every child it asked for once Redis takes writes again, each once", async ({
      fx,
    }) => {
      const logs = captureLogs();
      let giveBack: (() => Promise<void>) | undefined;
      // Redis refuses writes as the spawn starts (the step's model-responded is logged by then).
      const exhaustingTools = parentTools().map((tool) =>
        tool.name === "spawn_agents"
          ? {
              ...tool,
              async handler(args: unknown, ctx: ToolContext) {
                giveBack = await refuse(fx.redis);
                return tool.handler(args, ctx);
              },
            }
          : tool,
      );
      const child = defineAgent({
        name: `${label}-child`,
        instructions: "Answer.",
        model: scriptedModel(),
        script: [{ say: "child done" }],
      });
      const parent = defineAgent({
        name: `${label}-parent`,
        instructions: "Spawn.",
        model: scriptedModel(),
        tools: exhaustingTools,
        script: [
          {
            call: [
              {
                tool: "spawn_agents",
                args: {
                  agents: [
                    { agent: child.name, input: "a" },
                    { agent: child.name, input: "b" },
                  ],
                },
              },
            ],
          },
          { say: "spawned" },
        ],
      });
      const worker = await createWorker({
        connection: fx.server.url,
        prefix: fx.prefix,
        agents: [parent, child],
        concurrency: 3,
        logger: logs.logger,
      });
      try {
        const { runId } = await fx.errand.fire({ agent: parent.name, input: null });
        await logs.waitFor(
          (line) => line.msg === waiting && line.write === "spawn of the run's children",
        );
        await giveBack?.();
        giveBack = undefined;
        const events = await fx.waitForEvent(runId);
        expect(settleRun(foldRun(events))).toMatchObject({ status: "succeeded", attempts: 1 });
        const spawned = events.find(
          (event): event is RunEventOf<"tool-result"> => event.type === "tool-result",
        );
        expect(spawned?.data).toMatchObject({
          ok: true,
          result: { total: 2, succeeded: 2, failed: 0 },
        });
        const { results: children } = spawned!.data.result as { results: { runId: string }[] };
        for (const { runId: childId } of children) {
          const childEvents = await fx.waitForEvent(childId);
          expect(childEvents.filter((event) => event.type === "run-queued")).toHaveLength(1);
          expect(settleRun(foldRun(childEvents))).toMatchObject({
            status: "succeeded",
            attempts: 1,
          });
        }
        expect(await fx.redis.zcard(fx.errand.keys.children(runId))).toBe(2);
      } finally {
        await giveBack?.();
        await worker.close();
      }
    });
  },
);

describe("a worker started while Redis is out of memory", () => {
  it("waits for room to register, then runs its agents' runs", async ({ fx }) => {
    const logs = captureLogs();
    const agent = defineAgent({
      name: "oom-latecomer",
      instructions: "Answer.",
      model: scriptedModel(),
      script: [{ say: "here at last" }],
    });
    let giveBack: (() => Promise<void>) | undefined = await exhaustRedisMemory(fx.redis);
    const starting = createWorker({
      connection: fx.server.url,
      prefix: fx.prefix,
      agents: [agent],
      logger: logs.logger,
    });
    try {
      await logs.waitFor(
        (line) =>
          line.msg === "Redis is out of memory: retrying the write until it has room" &&
          line.write === "registration of the worker",
      );
      expect(await readAgentRegistrations(fx.redis, fx.errand.keys, agent.name)).toEqual([]);
      await giveBack();
      giveBack = undefined;
      const worker = await starting;
      try {
        const { runId } = await fx.errand.fire({ agent: agent.name, input: null });
        const events = await fx.waitForEvent(runId);
        expect(settleRun(foldRun(events))).toMatchObject({
          status: "succeeded",
          text: "here at last",
        });
      } finally {
        await worker.close();
      }
    } finally {
      await giveBack?.();
    }
  });
});
