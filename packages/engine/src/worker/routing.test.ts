/**
 * Routing runs to workers that run their agent. Each set of agents has its
 * queue; `fire` sends a run to a queue with a live worker (spreading over
 * several), never to one whose last worker closed; a run fired while no
 * worker of its agent lives waits, and a live worker that runs the agent
 * adopts it — a waiting job, or an active one whose worker died mid-run.
 */
import { foldRun, type RunEvent, settleRun } from "@errand/core";
import { type Agent, defineAgent, scriptedModel } from "@errand/runtime";
import { afterAll, describe, expect } from "vitest";
import { createLogger } from "../logger.js";
import { queueOfAgents } from "../queues/agent-queues.js";
import { readQueueBacklog } from "../queues/queue-backlog.js";
import { readQueueRegistrations } from "../queues/registry.js";
import type { EngineFixture } from "../test-support/engine-fixture.js";
import { engineTest } from "../test-support/engine-test.js";
import { testAgents } from "../test-support/test-agents.js";
import { createWorker, type ErrandWorker } from "./create-worker.js";

const it = engineTest("routing");

/** A beat short enough that a queue's workers count as gone within a second. */
const FAST_BEATS = { heartbeatMs: 200 };

const workers: ErrandWorker[] = [];

afterAll(async () => {
  for (const worker of workers) await worker.close({ graceMs: 1_000 });
});

function echo(name: string): Agent {
  return defineAgent({
    name,
    instructions: "Say your name.",
    model: scriptedModel(),
    script: [{ say: name }],
  });
}

async function startWorker(fx: EngineFixture, agents: readonly Agent[]): Promise<ErrandWorker> {
  const worker = await createWorker({
    connection: fx.server.url,
    prefix: fx.prefix,
    agents,
    concurrency: 4,
    logger: createLogger({ level: "silent" }),
    ...FAST_BEATS,
  });
  workers.push(worker);
  return worker;
}

/** The workers that started attempts of `runId`, in order, once it settled. */
async function startedBy(fx: EngineFixture, runId: string): Promise<string[]> {
  const events = await fx.waitForEvent(runId);
  return events.flatMap((event: RunEvent) =>
    event.type === "run-started" ? [event.data.workerId] : [],
  );
}

async function fireEach(fx: EngineFixture, agent: string, count: number): Promise<string[]> {
  const fired = await fx.errand.fireMany(
    Array.from({ length: count }, () => ({ agent, input: {} })),
  );
  return fired.results.map((result) => result.runId!);
}

describe("routing by agent", () => {
  it("spreads an agent's runs over its live queues, and sends none to a queue whose last worker closed", async ({
    fx,
  }) => {
    const alpha = echo("alpha");
    const alone = await startWorker(fx, [alpha]);
    const paired = await startWorker(fx, [alpha, echo("beta")]);
    expect(alone.queue).toBe(`${fx.prefix}.alpha`);
    expect(paired.queue).toBe(`${fx.prefix}.alpha,beta`);

    const spread = await Promise.all(
      (await fireEach(fx, "alpha", 30)).map((runId) => startedBy(fx, runId)),
    );
    expect(new Set(spread.flat())).toEqual(new Set([alone.workerId, paired.workerId]));

    await paired.close();
    const records = await readQueueRegistrations(fx.redis, fx.errand.keys);
    expect(records.find((record) => record.queue === paired.queue)?.stoppedAt).toBeDefined();
    const after = await Promise.all(
      (await fireEach(fx, "alpha", 10)).map((runId) => startedBy(fx, runId)),
    );
    expect(after.flat()).toEqual(Array(10).fill(alone.workerId));
  });

  it("keeps a run fired while no worker of its agent lives, until a worker that runs the agent adopts it", async ({
    fx,
  }) => {
    const gone = await startWorker(fx, [echo("gamma")]);
    await gone.close();
    const runIds = await fireEach(fx, "gamma", 3);
    const backlog = await readQueueBacklog(fx.redis, fx.errand.keys, gone.queue);
    expect(backlog).toMatchObject({ waiting: 3, byAgent: { gamma: 3 } });

    const adopter = await startWorker(fx, [echo("gamma"), echo("delta")]);
    for (const runId of runIds) expect(await startedBy(fx, runId)).toEqual([adopter.workerId]);
    expect(await readQueueBacklog(fx.redis, fx.errand.keys, gone.queue)).toMatchObject({
      waiting: 0,
      active: 0,
    });
  });

  it("adopts the run of a worker SIGKILLed mid-run from its orphaned queue; the run resumes from its log", async ({
    fx,
  }) => {
    const doomed = await fx.spawn("doomed", { lockDurationMs: 1_000, ...FAST_BEATS });
    const { runId } = await fx.errand.fire({
      agent: "plain",
      input: {
        script: [{ call: [{ tool: "bump", args: {} }] }, { sleepMs: 1_000, say: "done" }],
      },
    });
    await fx.waitForEvent(runId, (event) => event.type === "tool-result");
    doomed.signal("SIGKILL");
    await doomed.exited;

    const agents = [...testAgents({ redis: fx.redis, prefix: fx.prefix }), echo("epsilon")];
    const adopter = await startWorker(fx, agents);
    expect(adopter.queue).not.toBe(queueOfAgents(fx.prefix, ["plain", "structured", "text-only"]));
    expect(await startedBy(fx, runId)).toEqual(["doomed", adopter.workerId]);
    const result = settleRun(foldRun(await fx.errand.store.readLog(runId)));
    expect(result).toMatchObject({ status: "succeeded", text: "done", attempts: 2 });
    expect(await fx.redis.get(fx.counters.toolRuns(runId))).toBe("1");
    expect(await readQueueBacklog(fx.redis, fx.errand.keys, fx.queue.name)).toMatchObject({
      waiting: 0,
      active: 0,
    });
  });
});
