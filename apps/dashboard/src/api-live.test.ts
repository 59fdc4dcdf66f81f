/**
 * The overview and the live streams over real HTTP on a real deployment:
 * queue and worker counts, the rates of the last minutes, the overview
 * stream telling of settled runs, a run's stream following its log until
 * it settles, and streams ended when the dashboard closes.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OverviewMessage } from "./live/overview-hub.js";
import type { TimelineEvent } from "./present/timeline.js";
import type { Overview } from "./reads/overview.js";
import type { RunView } from "./reads/run-view.js";
import { CITY, cityAnswerSchema, lookupThenRecord, slowChild } from "./test-support/agents.js";
import { openSse, postAction, requestJson } from "./test-support/http.js";
import { waitFor } from "./test-support/wait-for.js";
import { startWorkload, type Workload } from "./test-support/workload.js";

let w: Workload;
let base: string;

beforeAll(async () => {
  w = await startWorkload("live");
  base = w.dashboard.url;
});

afterAll(async () => {
  await w?.stop();
});

async function fireCity(script: unknown[]): Promise<string> {
  const { runId } = await w.errand.fire({
    agent: CITY,
    input: { script },
    outputSchema: cityAnswerSchema,
  });
  return runId;
}

const overview = async () => (await requestJson<Overview>(base, "/api/overview")).body;

describe("GET /api/overview", () => {
  it("shows the worker with its heartbeat and agents, and the queue's waiting and active jobs", async () => {
    const slow = await Promise.all(Array.from({ length: 10 }, () => fireCity(slowChild())));
    const busy = await waitFor("8 runs active and 2 waiting", async () => {
      const current = await overview();
      const queue = current.queues.find((candidate) => candidate.name === w.worker.queue);
      const cityVersion = current.versions.find((version) => version.agent === "city");
      return queue?.active === 8 && queue.waiting === 2 && cityVersion?.waitingRuns === 2
        ? current
        : undefined;
    });
    // Each agent's one version: live, its waiting runs counted.
    expect(busy.versions).toEqual([
      expect.objectContaining({ agent: "city", live: true, waitingRuns: 2 }),
      expect.objectContaining({ agent: "lead", live: true, waitingRuns: 0 }),
    ]);
    const queue = busy.queues.find((candidate) => candidate.name === w.worker.queue)!;
    expect(queue.agents).toEqual(["city", "lead"]);
    expect(busy.workers).toHaveLength(1);
    expect(busy.workers[0]).toMatchObject({
      workerId: w.worker.workerId,
      agents: ["city", "lead"],
      queues: [w.worker.queue],
      concurrency: 8,
      stale: false,
    });
    expect(busy.workers[0]!.heartbeatAgeMs).toBeGreaterThanOrEqual(0);
    for (const runId of slow) await w.errand.cancel(runId);
    for (const runId of slow) await w.waitForResult(runId);
    const settled = await waitFor("the 10 cancelled runs in the queue's counts", async () => {
      const current = await overview();
      const runs = current.queues.find((candidate) => candidate.name === w.worker.queue);
      return runs?.active === 0 && runs.waiting === 0 && runs.cancelled === 10
        ? current
        : undefined;
    });
    expect(settled.runs).toMatchObject({ active: 0, cancelled: 10 });
  });

  it("counts runs settled per minute and the failure rate", async () => {
    const before = (await overview()).throughput;
    const ok = await Promise.all([
      fireCity(lookupThenRecord("Kyiv")),
      fireCity(lookupThenRecord("Lima")),
    ]);
    const bad = await fireCity([{ say: "no answer" }]);
    for (const runId of [...ok, bad]) await w.waitForResult(runId);
    const after = (await overview()).throughput;
    expect(after.settled - before.settled).toBe(3);
    expect(after.failed - before.failed).toBe(1);
    expect(after.failureRate).toBeCloseTo(after.failed / after.settled);
    expect(after.settledPerMinute).toBeCloseTo(after.settled / after.windowMinutes);
    expect(after.minutes).toHaveLength(after.windowMinutes);
    const counted = after.minutes.reduce((sum, m) => sum + m.succeeded + m.failed + m.cancelled, 0);
    expect(counted).toBe(after.settled);
  });
});

describe("GET /api/live", () => {
  it("sends the overview at once, then again when a run settles", async () => {
    const stream = await openSse(base, "/api/live");
    try {
      expect(stream.status).toBe(200);
      const first = await stream.next();
      expect(first.event).toBe("overview");
      const start = (first.data as OverviewMessage).overview.throughput.settled;
      const runId = await fireCity(lookupThenRecord("Quito"));
      await stream.until((message) => {
        const { overview: current, changed } = message.data as OverviewMessage;
        return changed && current.throughput.settled === start + 1;
      });
      expect((await w.errand.result(runId))?.status).toBe("succeeded");
    } finally {
      stream.close();
    }
  });
});

describe("GET /api/runs/:runId/live", () => {
  it("follows a run's log: its state, each new event, and the end once it settles", async () => {
    const runId = await fireCity([...lookupThenRecord("Accra").slice(0, 1), ...slowChild()]);
    await w.waitForEvent(runId, (event) => event.type === "tool-result");
    const stream = await openSse(base, `/api/runs/${runId}/live`);
    try {
      const first = await stream.next();
      expect(first.event).toBe("run");
      expect((first.data as RunView).status).toBe("running");
      const backlog = await stream.until(
        (message) =>
          message.event === "event" && (message.data as TimelineEvent).type === "tool-result",
      );
      expect(backlog.map((message) => (message.data as TimelineEvent).type)).toEqual([
        "run-queued",
        "run-started",
        "model-responded",
        "tool-called",
        "tool-result",
      ]);
      await postAction(base, `/api/runs/${runId}/cancel`);
      const rest = await stream.until((message) => message.event === "end");
      const types = rest
        .filter((message) => message.event === "event")
        .map((message) => (message.data as TimelineEvent).type);
      expect(types.slice(-2)).toEqual(["cancel-requested", "cancelled"]);
      const views = rest.filter((message) => message.event === "run").map((m) => m.data as RunView);
      expect(views.at(-1)).toEqual(await w.errand.result(runId, { waitMs: 10_000 }));
      expect(rest.at(-1)?.data).toEqual({ runId, status: "cancelled" });
      await stream.ended();
    } finally {
      stream.close();
    }
  });

  it("starts after afterSeq, and ends at once for a settled run", async () => {
    const runId = await fireCity(lookupThenRecord("Dakar"));
    const events = await w.waitForEvent(runId);
    const stream = await openSse(base, `/api/runs/${runId}/live?afterSeq=${events.length - 1}`);
    const messages = await stream.until((message) => message.event === "end");
    await stream.ended();
    const sent = messages.filter((message) => message.event === "event");
    expect(sent.map((message) => (message.data as TimelineEvent).seq)).toEqual([events.length]);
    expect((messages[0]!.data as RunView).status).toBe("succeeded");
  });

  it("answers 404 before streaming for an unknown run", async () => {
    const runId = await fireCity(lookupThenRecord("Cairo"));
    const unknown = `${runId.slice(0, -4)}ZZZZ`;
    const { status, body } = await requestJson<{ error: { code: string } }>(
      base,
      `/api/runs/${unknown}/live`,
    );
    expect(status).toBe(404);
    expect(body.error.code).toBe("not_found");
  });
});

describe("closing the dashboard", () => {
  it("ends its open streams", async () => {
    const dashboard = await w.startDashboard();
    const runId = await fireCity(slowChild());
    await w.waitForEvent(runId, (event) => event.type === "run-started");
    const runStream = await openSse(dashboard.url, `/api/runs/${runId}/live`);
    const overviewStream = await openSse(dashboard.url, "/api/live");
    await runStream.next();
    await overviewStream.next();
    await dashboard.close();
    await runStream.ended();
    await overviewStream.ended();
    await w.errand.cancel(runId);
  });
});
