/**
 * errand is a good BullMQ citizen: `@bull-board/api`, mounted on errand's
 * queue (its hash-tagged prefix), sees every run as a job named after its
 * agent whose id is the runId and whose data is `{ runId, queued }` (the
 * run's `run-queued` when short enough), in the state
 * the run is in, with the same counts as the dashboard's overview: a
 * succeeded run and one cancelled while running under completed (with the
 * outcome as return value), a failed run under failed with its error as
 * reason (and never retried), a parked parent under delayed until its next
 * re-check.
 */
import type { AddressInfo } from "node:net";
import { createBullBoard } from "@bull-board/api";
import { BullMQAdapter } from "@bull-board/api/bullMQAdapter";
import { HonoAdapter } from "@bull-board/hono";
import { openConnection } from "@errand/engine";
import { closeConnection } from "@errand/engine/ops";
import { serve } from "@hono/node-server";
import { serveStatic } from "@hono/node-server/serve-static";
import { Queue } from "bullmq";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Overview } from "./reads/overview.js";
import {
  CITY,
  cityAnswerSchema,
  cityItem,
  LEAD,
  leadScript,
  lookupThenRecord,
  slowChild,
} from "./test-support/agents.js";
import { requestJson } from "./test-support/http.js";
import { waitFor } from "./test-support/wait-for.js";
import {
  WORKLOAD_PARK_RECHECK_MS as RECHECK_MS,
  silentLogger,
  startWorkload,
  type Workload,
} from "./test-support/workload.js";

interface BoardJob {
  id: string;
  name: string;
  data: unknown;
  timestamp?: number;
  processedOn?: number;
  delay?: number;
  attempts?: number;
  failedReason?: string;
  returnValue?: unknown;
}

interface BoardQueue {
  name: string;
  counts: Record<string, number>;
  jobs: BoardJob[];
}

let w: Workload;
let queue: Queue;
let connection: ReturnType<typeof openConnection>;
let board: { url: string; close(): Promise<void> };

beforeAll(async () => {
  w = await startWorkload("bull-board");
  connection = openConnection(w.server.url, { logger: silentLogger, name: "test queue" });
  queue = new Queue(w.worker.queue, { connection, prefix: w.errand.keys.bullmqPrefix });
  const serverAdapter = new HonoAdapter(serveStatic).setBasePath("/board");
  createBullBoard({
    queues: [new BullMQAdapter(queue, { readOnlyMode: true })],
    serverAdapter,
  });
  const app = new Hono();
  app.route("/board", serverAdapter.registerPlugin());
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const listening = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, () =>
      resolve(listening),
    );
  });
  const { port } = server.address() as AddressInfo;
  board = {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
});

afterAll(async () => {
  await board?.close();
  await queue?.close();
  if (connection) await closeConnection(connection);
  await w?.stop();
});

async function boardQueue(status: string): Promise<BoardQueue> {
  const { status: code, body } = await requestJson<{ queues: BoardQueue[] }>(
    board.url,
    `/board/api/queues?activeQueue=${queue.name}&status=${status}&page=1&jobsPerPage=50`,
  );
  expect(code).toBe(200);
  const found = body.queues.find((candidate) => candidate.name === queue.name);
  if (found === undefined) throw new Error(`bull-board does not list queue ${queue.name}`);
  return found;
}

async function fireCity(script: unknown[]): Promise<string> {
  const { runId } = await w.errand.fire({
    agent: CITY,
    input: { script },
    outputSchema: cityAnswerSchema,
  });
  return runId;
}

describe("bull-board on errand's queue", () => {
  it("shows running and waiting runs as jobs: id = runId, name = agent, data = { runId, queued }", async () => {
    const slow = await Promise.all(Array.from({ length: 10 }, () => fireCity(slowChild())));
    const active = await waitFor("8 active jobs on the board", async () => {
      const listed = await boardQueue("active");
      return listed.counts.active === 8 ? listed : undefined;
    });
    const waiting = await boardQueue("waiting");
    expect(waiting.counts.waiting).toBe(2);
    const jobs = [...active.jobs, ...waiting.jobs];
    expect(jobs.map((job) => job.id).sort()).toEqual([...slow].sort());
    for (const job of jobs) {
      expect(job.name).toBe(CITY);
      // The run's run-queued rides in its job (short enough): the one its log holds.
      const [queuedEvent] = await w.errand.store.readLog(job.id, { untilSeq: 1 });
      expect(job.data).toEqual({
        runId: job.id,
        queued: { at: queuedEvent!.at, data: queuedEvent!.data },
      });
    }
    expect(active.jobs.every((job) => typeof job.processedOn === "number")).toBe(true);
    for (const job of active.jobs) {
      expect((await w.errand.store.readHead(job.id))?.status).toBe("running");
    }
    for (const job of waiting.jobs) {
      expect((await w.errand.store.readHead(job.id))?.status).toBe("queued");
    }
    const overview = await requestJson<Overview>(w.dashboard.url, "/api/overview");
    const ours = overview.body.queues.find((candidate) => candidate.name === queue.name);
    expect(ours).toMatchObject({ active: 8, waiting: 2, live: true });

    for (const runId of slow) await w.errand.cancel(runId);
    for (const runId of slow) await w.waitForResult(runId);
  });

  it("lists a succeeded run under completed, a failed one under failed with its error, once", async () => {
    const ok = await fireCity(lookupThenRecord("Porto"));
    const bad = await fireCity([{ say: "no answer" }]);
    for (const runId of [ok, bad]) await w.waitForResult(runId);
    const failure = await w.errand.result(bad);
    expect(failure?.status).toBe("failed");

    const completed = await waitFor("the succeeded run's job completed", async () =>
      (await boardQueue("completed")).jobs.find((job) => job.id === ok),
    );
    expect(completed).toMatchObject({
      name: CITY,
      returnValue: { kind: "settled", status: "succeeded" },
    });
    const failed = await waitFor("the failed run's job failed", async () =>
      (await boardQueue("failed")).jobs.find((job) => job.id === bad),
    );
    const error = failure?.status === "failed" ? failure.error : undefined;
    expect(failed.failedReason).toBe(`${error?.code}: ${error?.message}`);
    // A settled run is never tried again: one attempt, one run-started, the job left failed.
    expect(failed.attempts).toBe(1);
    const log = await w.errand.store.readLog(bad);
    expect(log.filter((event) => event.type === "run-started")).toHaveLength(1);
    expect(await queue.getJobState(bad)).toBe("failed");
  });

  it("lists a run cancelled while running under completed, returning cancelled", async () => {
    const slow = await fireCity(slowChild());
    await w.waitForEvent(slow, (event) => event.type === "run-started");
    await w.errand.cancel(slow);
    await w.waitForResult(slow);
    expect((await w.errand.result(slow))?.status).toBe("cancelled");
    const job = await waitFor("the cancelled run's job completed", async () =>
      (await boardQueue("completed")).jobs.find((candidate) => candidate.id === slow),
    );
    expect(job.returnValue).toEqual({ kind: "cancelled" });
    expect((await boardQueue("failed")).jobs.map((candidate) => candidate.id)).not.toContain(slow);
  });

  it("lists a parked parent as delayed until its next re-check, never a time already past", async () => {
    const { runId: lead } = await w.errand.fire({
      agent: LEAD,
      input: { script: leadScript([cityItem(slowChild())]) },
    });
    await w.waitForEvent(lead, (event) => event.type === "run-parked");
    // BullMQ re-checks the job at its delayed score; the board shows timestamp + delay.
    const delayedKey = `${queue.qualifiedName}:delayed`;
    const recheckAt = async () => {
      const score = await connection.zscore(delayedKey, lead);
      return score === null ? undefined : Math.floor(Number(score) / 0x1000);
    };
    const [job, scheduled] = await waitFor(
      "the parked job, re-parked at least twice, listed between two equal reads",
      async () => {
        const before = await recheckAt();
        const listed = (await boardQueue("delayed")).jobs.find(
          (candidate) => candidate.id === lead,
        );
        const after = await recheckAt();
        const parkedAgain = (listed?.timestamp ?? Date.now()) + 2 * RECHECK_MS < Date.now();
        return listed && before !== undefined && before === after && parkedAgain
          ? ([listed, before] as const)
          : undefined;
      },
    );
    expect((job.timestamp ?? 0) + (job.delay ?? 0)).toBe(scheduled);

    const children = (await w.errand.list({ parentRunId: lead })).items.map((child) => child.runId);
    await w.errand.cancel(lead, { cascade: true });
    for (const runId of [lead, ...children]) await w.waitForResult(runId);
  });
});
