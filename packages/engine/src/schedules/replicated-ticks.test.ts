/**
 * Scheduled fires with the durability their worker was started with
 * (docs/architecture/schedules.md#durability), on a real Redis and a real
 * replica: a worker with `durability: "replicated"` fires a tick's run as
 * `fire` does, answered once a replica has it. Without a replica each
 * tick's run is fired but not confirmed: the tick fails, saying so, and
 * notes its run all the same, so the next tick's `overlap` sees that run
 * (settled) rather than a tick still being fired, and fires. Once a replica
 * follows the Redis, the ticks fire and are confirmed.
 */
import { defineAgent, scriptedModel } from "@errand/runtime";
import { startRedis, startReplicaOf, uniqueKeyPrefix, waitUntil } from "@errand/testing";
import { expect, it } from "vitest";
import { createErrand } from "../client/client.js";
import { captureLogs } from "../test-support/log-capture.js";
import type { LogLine } from "../test-support/worker-processes.js";
import { createWorker } from "../worker/create-worker.js";

const ticking = defineAgent({
  name: "replicated-ticking",
  instructions: "Say you ticked.",
  model: scriptedModel(),
  script: [{ say: "ticked" }],
});

/** The ticks that failed for want of a replica, as the worker logged them. */
function unconfirmedTicks(lines: readonly LogLine[]): string[] {
  return lines
    .filter(
      (line) =>
        line.msg === "schedule tick failed" &&
        String(line.error).includes("is not confirmed on a replica"),
    )
    .map((line) => String(line.tick));
}

const WAIT = { timeoutMs: 60_000, intervalMs: 100 };

it("fires each tick's run as a replicated fire, noting a run no replica confirmed all the same", async () => {
  const server = await startRedis({ maxmemoryPolicy: "noeviction" });
  const logs = captureLogs();
  const prefix = uniqueKeyPrefix("replicated-ticks");
  const worker = await createWorker({
    connection: server.url,
    prefix,
    logger: logs.logger,
    agents: [ticking],
    durability: "replicated",
    replicationTimeoutMs: 200,
  });
  const errand = createErrand({ connection: server.url, prefix, logger: logs.logger });
  const stops: (() => Promise<void>)[] = [() => server.stop()];
  try {
    // overlap "skip" (the default): a tick that noted nothing would hold every later tick back.
    await errand.schedules.upsert({
      id: "every-second",
      agent: ticking.name,
      everyMs: 1_000,
      input: null,
    });
    const noted = async () => (await errand.schedules.list())[0]!.lastRuns;

    const refused = await waitUntil(() => {
      const ticks = unconfirmedTicks(logs.lines);
      return ticks.length >= 2 ? ticks : undefined;
    }, WAIT);
    expect(refused, logs.text()).toBeDefined();
    const notedTicks = (await noted()).map((run) => run.tick);
    for (const tick of refused!) expect(notedTicks).toContain(tick);

    const replica = await startReplicaOf(server);
    stops.unshift(() => replica.stop());
    const upAt = Date.now();
    const confirmedAfter = await waitUntil(async () => {
      const [newest] = await noted();
      return newest !== undefined && Date.parse(newest.tick) >= upAt + 2_000 ? newest : undefined;
    }, WAIT);
    expect(confirmedAfter).toBeDefined();
    // A tick in flight as the replica came up may still have failed; none after it.
    const failedSince = unconfirmedTicks(logs.lines).filter(
      (tick) => Date.parse(tick) >= upAt + 1_000,
    );
    expect(failedSince).toEqual([]);
  } finally {
    await errand.close();
    await worker.close();
    for (const stop of stops) await stop();
  }
}, 180_000);
