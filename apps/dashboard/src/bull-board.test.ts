/**
 * errand is a good BullMQ citizen: `@bull-board/api`, mounted on errand's
 * queue (its hash-tagged prefix), sees every run as a job named after its
 * agent whose id is the runId and whose data is `{ runId }`, in the state
 * the run is in, with the same counts as the dashboard's overview; and
 * cancelled, failed and finished runs leave neither failed nor orphaned jobs.
 */
import type { AddressInfo } from "node:net";
import { createBullBoard } from "@bull-board/api";
import { BullMQAdapter } from "@bull-board/api/bullMQAdapter";
import { HonoAdapter } from "@bull-board/hono";
import { closeConnection, openConnection } from "@errand/engine";
import { serve } from "@hono/node-server";
import { serveStatic } from "@hono/node-server/serve-static";
import { Queue } from "bullmq";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Overview } from "./reads/overview.js";
import { CITY, cityAnswerSchema, lookupThenRecord, slowChild } from "./test-support/agents.js";
import { requestJson } from "./test-support/http.js";
import { waitFor } from "./test-support/wait-for.js";
import { silentLogger, startWorkload, type Workload } from "./test-support/workload.js";

interface BoardJob {
  id: string;
  name: string;
  data: unknown;
  processedOn?: number;
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
  it("shows running and waiting runs as jobs: id = runId, name = agent, data = { runId }", async () => {
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
      expect(job.data).toEqual({ runId: job.id });
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

  it("is left with no failed or leftover jobs once runs succeed, fail and are cancelled", async () => {
    const ok = await fireCity(lookupThenRecord("Porto"));
    const bad = await fireCity([{ say: "no answer" }]);
    for (const runId of [ok, bad]) await w.waitForResult(runId);
    expect((await w.errand.result(bad))?.status).toBe("failed");
    const idle = await waitFor("an idle queue on the board", async () => {
      const listed = await boardQueue("latest");
      const { active, waiting, delayed, prioritized } = listed.counts;
      return active === 0 && waiting === 0 && (delayed ?? 0) === 0 && (prioritized ?? 0) === 0
        ? listed
        : undefined;
    });
    expect(idle.counts.failed).toBe(0);
    expect(idle.counts.completed).toBe(0);
    expect(idle.jobs).toEqual([]);
  });
});
