/**
 * A running worker keeps its process alive until it is closed, as a BullMQ
 * `Worker` does: a process that starts a worker and does nothing else
 * (`bare-worker-process.ts`) does not exit by itself, and its worker takes a
 * run fired once it is idle. What holds the process is its Redis
 * connections, sockets kept referenced (no timer chain that could run out):
 * the test asserts that mechanism instead of waiting out a clock.
 */
import { isTerminalEventType } from "@errand/core";
import { type RedisServer, startRedis, uniqueKeyPrefix } from "@errand/testing";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createErrand } from "../client/client.js";
import {
  BARE_AGENT,
  killWorkers,
  spawnWorker,
  type WorkerProcess,
} from "../test-support/worker-processes.js";

let server: RedisServer;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  server = await startRedis({ maxmemoryPolicy: "noeviction" });
});
afterAll(async () => {
  await killWorkers(workers);
  await server?.stop();
});

describe("a process that only starts a worker", () => {
  it("is kept alive by the worker's Redis sockets and takes a run fired after", async () => {
    const prefix = uniqueKeyPrefix("lifetime");
    const worker = await spawnWorker({
      bare: true,
      redisUrl: server.url,
      prefix,
      workerId: "bare",
    });
    workers.push(worker);
    const { resources } = await worker.waitForLine(
      (line) => line.msg === "keeping the event loop alive",
      "the resources keeping it alive",
    );
    // Only referenced handles are listed: its Redis sockets hold the event loop.
    expect(resources).toContain("TCPSocketWrap");

    const errand = createErrand({ connection: server.url, prefix });
    try {
      const { runId } = await errand.fire({
        agent: BARE_AGENT,
        input: { script: [{ say: "still here" }] },
      });
      await vi.waitFor(
        async () => {
          const log = await errand.store.readLog(runId);
          expect(log.map((event) => event.type).filter(isTerminalEventType)).toEqual(["finished"]);
        },
        { timeout: 30_000, interval: 200 },
      );
    } finally {
      await errand.close();
    }
    expect(worker.child.exitCode).toBeNull();
    expect(worker.lines.some((line) => line.msg === "event loop emptied")).toBe(false);
  });
});
