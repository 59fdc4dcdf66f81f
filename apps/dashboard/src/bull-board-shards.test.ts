/**
 * A queue of several shards on a queue UI and on the dashboard: bull-board,
 * mounted as the README says (every shard of every registered queue), lists
 * one queue per shard, each holding the runs of its shard; the dashboard's
 * overview shows the queue once, with the shards' counts summed, and names
 * the shards no live worker takes.
 */
import type { AddressInfo } from "node:net";
import { createBullBoard } from "@bull-board/api";
import { BullMQAdapter } from "@bull-board/api/bullMQAdapter";
import { HonoAdapter } from "@bull-board/hono";
import {
  createErrand,
  createWorker,
  engineKeys,
  openConnection,
  readQueueRegistrations,
  shardsOfQueue,
} from "@errand/engine";
import { closeConnection, shardOfRun } from "@errand/engine/ops";
import { defineAgent, scriptedModel } from "@errand/runtime";
import { startRedis, uniqueKeyPrefix } from "@errand/testing";
import { serve } from "@hono/node-server";
import { serveStatic } from "@hono/node-server/serve-static";
import { Queue } from "bullmq";
import { Hono } from "hono";
import { expect, it } from "vitest";
import { createDashboard } from "./create-dashboard.js";
import type { Overview } from "./reads/overview.js";
import { requestJson } from "./test-support/http.js";
import { silentLogger } from "./test-support/workload.js";

const QUEUE_SHARDS = 3;
const SHARDS = 6;
const RUNS = 12;

it("bull-board lists each shard of a queue with its runs; the overview sums them under the queue", async () => {
  const server = await startRedis({ maxmemoryPolicy: "noeviction" });
  const prefix = uniqueKeyPrefix("dashboard-shards");
  const keys = engineKeys(prefix);
  const common = { connection: server.url, prefix, shards: SHARDS, logger: silentLogger };
  const sayer = defineAgent({
    name: "sayer",
    instructions: "Say it.",
    model: scriptedModel(),
    scriptFromInput: true,
  });
  // Registered, then gone: the runs wait in their shards.
  const idle = await createWorker({ ...common, agents: [sayer], queueShards: QUEUE_SHARDS });
  await idle.close({ graceMs: 0 });
  const errand = createErrand(common);
  const connection = openConnection(server.url, { logger: silentLogger, name: "test queues" });
  const dashboard = await createDashboard({ ...common, port: 0 });
  let close = async () => {};
  try {
    const fired = await errand.fireMany(
      Array.from({ length: RUNS }, () => ({ agent: "sayer", input: { script: [{ say: "hi" }] } })),
    );
    const runIds = fired.results.map((item) => item.runId!);
    const queues = (await readQueueRegistrations(connection, keys)).flatMap(({ queue }) =>
      shardsOfQueue(keys, queue).map(
        (shard) => new Queue(shard.name, { connection, prefix: shard.prefix }),
      ),
    );
    expect(queues.map((queue) => queue.name)).toEqual(
      [0, 1, 2].map((shard) => `${idle.queue}.${shard}`),
    );
    const serverAdapter = new HonoAdapter(serveStatic).setBasePath("/board");
    createBullBoard({
      queues: queues.map((queue) => new BullMQAdapter(queue, { readOnlyMode: true })),
      serverAdapter,
    });
    const app = new Hono();
    app.route("/board", serverAdapter.registerPlugin());
    const board = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const listening = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, () =>
        resolve(listening),
      );
    });
    close = async () => {
      await new Promise<void>((resolve) => board.close(() => resolve()));
      await Promise.all(queues.map((queue) => queue.close()));
    };
    const url = `http://127.0.0.1:${(board.address() as AddressInfo).port}`;

    for (const queue of queues) {
      const { status, body } = await requestJson<{
        queues: { name: string; jobs: { id: string }[] }[];
      }>(url, `/board/api/queues?activeQueue=${queue.name}&status=waiting&page=1&jobsPerPage=50`);
      expect(status).toBe(200);
      const listed = body.queues.find((candidate) => candidate.name === queue.name);
      const expected = runIds.filter(
        (runId) => shardOfRun(keys, idle.queue, runId).name === queue.name,
      );
      expect(expected.length).toBeGreaterThan(0);
      expect(listed?.jobs.map((job) => job.id).sort()).toEqual([...expected].sort());
    }

    const overview = await requestJson<Overview>(dashboard.url, "/api/overview");
    expect(overview.body.queues).toHaveLength(1);
    expect(overview.body.queues[0]).toMatchObject({
      name: idle.queue,
      shards: QUEUE_SHARDS,
      waiting: RUNS,
      live: false,
      untakenShards: [],
    });

    // A live worker that takes shards 0 and 2 leaves shard 1's runs waiting: the overview names it.
    const partial = await createWorker({
      ...common,
      agents: [sayer],
      queueShards: QUEUE_SHARDS,
      takeQueueShards: [0, 2],
    });
    try {
      const taken = await requestJson<Overview>(dashboard.url, "/api/overview");
      expect(taken.body.queues[0]).toMatchObject({
        name: idle.queue,
        live: true,
        untakenShards: [1],
      });
    } finally {
      await partial.close({ graceMs: 0 });
    }
  } finally {
    await close();
    await dashboard.close();
    await errand.close();
    await closeConnection(connection);
    await server.stop();
  }
});
