/**
 * Schedules end to end, on a Redis of this file's own (append-only file on,
 * so that a restart keeps its data) with in-process workers and clients:
 * one run per tick across three workers and two clients, `overlap: "skip"`,
 * a Redis and worker restart, `catchUp` after an outage, and every refusal
 * at upsert with nothing written. Runs are counted from their logs, by the
 * tick their metadata names — never from the schedule's own bookkeeping.
 */
import { setTimeout as delay } from "node:timers/promises";
import { isErrandError, type RunEvent } from "@errand/core";
import { defineAgent, defineTool, scriptedModel } from "@errand/runtime";
import { type RedisServer, startRedis, uniqueKeyPrefix } from "@errand/testing";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createErrand, type Errand } from "../client/client.js";
import { createLogger } from "../logger.js";
import { captureLogs, type LogCapture } from "../test-support/log-capture.js";
import { createWorker } from "../worker/create-worker.js";
import { SCHEDULE_METADATA_KEY, TICK_METADATA_KEY } from "./fire-tick.js";

/** How long a lingering run's one tool call takes: several ticks of a one-second schedule. */
const LINGER_MS = 3_500;

const ticking = defineAgent({
  name: "ticking",
  instructions: "Say you ticked.",
  model: scriptedModel(),
  inputSchema: z.object({ label: z.string().min(1) }),
  script: [{ say: "ticked" }],
});

const lingering = defineAgent({
  name: "lingering",
  instructions: "Linger, then say so.",
  model: scriptedModel(),
  tools: [
    defineTool({
      name: "linger",
      description: "Takes a while.",
      parameters: z.object({}),
      handler: async () => {
        await delay(LINGER_MS);
        return { lingered: true };
      },
    }),
  ],
  script: [{ call: [{ tool: "linger", args: {} }] }, { say: "lingered" }],
});

const silent = createLogger({ level: "silent" });

let server: RedisServer;
let redis: Redis;
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  server = await startRedis({ appendonly: true, appendfsync: "always" });
  redis = new Redis(server.url);
  redis.on("error", () => {}); // it reconnects after the restart below
});
afterAll(async () => {
  for (const close of closers.reverse()) await close();
  redis?.disconnect();
  await server?.stop();
});

/** A worker of both agents under `prefix`, closed at the end of the file unless closed before. */
async function startWorker(prefix: string, options: { logger?: LogCapture["logger"] } = {}) {
  const worker = await createWorker({
    connection: server.url,
    prefix,
    agents: [ticking, lingering],
    concurrency: 4,
    logger: options.logger ?? silent,
  });
  closers.push(() => worker.close({ graceMs: 500 }));
  return worker;
}

/** A client under `prefix`, closed at the end of the file. */
function openClient(prefix: string): Errand {
  const errand = createErrand({ connection: server.url, prefix, logger: silent });
  closers.push(() => errand.close());
  return errand;
}

/** Every run fired under `prefix` with its `run-queued`, read from its log. */
async function runsUnder(errand: Errand): Promise<{ runId: string; queued: RunEvent }[]> {
  const heads = await redis.keys(`${errand.keys.prefix}:*:run:*`);
  const runIds = heads.flatMap((key) => /:run:(R\w+)$/.exec(key)?.[1] ?? []);
  return Promise.all(
    runIds.map(async (runId) => ({ runId, queued: (await errand.store.readLog(runId))[0]! })),
  );
}

/** The ticks (ms) of the runs schedule `id` made, from their metadata, oldest first. */
async function ticksOf(errand: Errand, id: string): Promise<number[]> {
  const runs = await runsUnder(errand);
  return runs
    .map(({ queued }) => (queued.data as { metadata?: Record<string, string> }).metadata ?? {})
    .filter((metadata) => metadata[SCHEDULE_METADATA_KEY] === id)
    .map((metadata) => Date.parse(metadata[TICK_METADATA_KEY]!))
    .sort((a, b) => a - b);
}

/** Waits until schedule `id` made at least `count` runs (generously bounded); resolves with their ticks. */
async function untilTicks(errand: Errand, id: string, count: number): Promise<number[]> {
  await expect
    .poll(async () => (await ticksOf(errand, id)).length, { timeout: 60_000, interval: 250 })
    .toBeGreaterThanOrEqual(count);
  return ticksOf(errand, id);
}

/**
 * The keys under `prefix` a schedule or a run could write: BullMQ's periodic
 * stalled check and the `meta` every BullMQ queue writes as it opens are left out.
 */
async function scheduleAndRunKeys(prefix: string): Promise<string[]> {
  const keys = await redis.keys(`${prefix}*`);
  return keys
    .filter(
      (key) =>
        (key.includes("schedule") && !/:(stalled-check|meta)$/.test(key)) || key.includes(":run:"),
    )
    .sort();
}

/** `ticks` has no tick twice. */
function expectNoDuplicates(ticks: readonly number[]): void {
  expect(new Set(ticks).size).toBe(ticks.length);
}

describe("schedules", () => {
  it("fires each tick of a one-second schedule once across three workers and two clients", async () => {
    const prefix = uniqueKeyPrefix("schedules-once");
    await Promise.all([startWorker(prefix), startWorker(prefix), startWorker(prefix)]);
    const [first, second] = [openClient(prefix), openClient(prefix)];
    const spec = {
      id: "every-second",
      agent: "ticking",
      input: { label: "tick" },
      everyMs: 1_000,
      overlap: "allow",
      catchUp: "all",
    };
    // Both clients upsert the same schedule, at once and again: one schedule, one job scheduler.
    await Promise.all([first.schedules.upsert(spec), second.schedules.upsert(spec)]);
    await second.schedules.upsert(spec);
    await untilTicks(first, "every-second", 12);
    await first.schedules.pause("every-second");
    // A tick in hand when it paused may still land: let it, then count.
    await delay(1_500);
    const ticks = await ticksOf(first, "every-second");

    expectNoDuplicates(ticks);
    const span = (ticks.at(-1)! - ticks[0]!) / 1_000 + 1;
    expect(ticks.every((tick) => tick % 1_000 === 0)).toBe(true);
    expect(ticks.length).toBeGreaterThanOrEqual(span - 1);
    const [listed] = await second.schedules.list();
    expect(listed).toMatchObject({
      id: "every-second",
      paused: true,
      lastFireAt: new Date(ticks.at(-1)!).toISOString(),
    });
    expect(listed!.lastRuns.length).toBe(5);
    expect(listed).not.toHaveProperty("nextFireAt");
  });

  it("skips a tick while the schedule's previous run still runs (overlap: skip)", async () => {
    const prefix = uniqueKeyPrefix("schedules-skip");
    await startWorker(prefix);
    const errand = openClient(prefix);
    await errand.schedules.upsert({ id: "slow", agent: "lingering", input: null, everyMs: 1_000 });
    await untilTicks(errand, "slow", 3);
    await errand.schedules.remove("slow");

    const runs = (await runsUnder(errand)).map(({ runId }) => runId);
    const heads = await Promise.all(runs.map((runId) => errand.store.readHead(runId)));
    const byStart = heads
      .map((head) => head!)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    // No run was fired while the one before it ran: each starts after the previous settled.
    for (let i = 1; i < byStart.length; i++) {
      const previous = byStart[i - 1]!;
      expect(previous.settledAt).toBeDefined();
      expect(byStart[i]!.createdAt >= previous.settledAt!).toBe(true);
    }
    // Each run lasts several ticks, so most ticks were skipped.
    const span =
      (Date.parse(byStart.at(-1)!.createdAt) - Date.parse(byStart[0]!.createdAt)) / 1_000;
    expect(byStart.length).toBeLessThan(span);
  });

  it("keeps the schedule and its next tick across a Redis restart and a worker restart", async () => {
    const prefix = uniqueKeyPrefix("schedules-restart");
    const worker = await startWorker(prefix);
    const errand = openClient(prefix);
    await errand.schedules.upsert({
      id: "durable",
      agent: "ticking",
      input: { label: "durable" },
      everyMs: 1_000,
      catchUp: "all",
    });
    const before = await untilTicks(errand, "durable", 2);
    await worker.close({ graceMs: 500 });
    await server.kill();
    await server.restart();
    const [listed] = await errand.schedules.list();
    expect(listed).toMatchObject({ id: "durable", paused: false });
    expect(Date.parse(listed!.nextFireAt!)).toBeGreaterThan(before.at(-1)!);

    await startWorker(prefix);
    const after = await untilTicks(errand, "durable", before.length + 3);
    expectNoDuplicates(after);
    expect(after.at(-1)!).toBeGreaterThan(before.at(-1)!);
    await errand.schedules.remove("durable");
  });

  it("catches up after an outage as each catchUp says", async () => {
    const prefix = uniqueKeyPrefix("schedules-catch-up");
    const worker = await startWorker(prefix);
    const errand = openClient(prefix);
    const policies = ["none", "last", "all"] as const;
    for (const catchUp of policies) {
      await errand.schedules.upsert({
        id: `catch-up-${catchUp}`,
        agent: "ticking",
        input: { label: catchUp },
        everyMs: 1_000,
        overlap: "allow",
        catchUp,
      });
    }
    for (const catchUp of policies) await untilTicks(errand, `catch-up-${catchUp}`, 1);
    await worker.close({ graceMs: 500 });
    const outageStart = Date.now();
    await delay(10_000); // a 10 s outage, past LATE_TICK_MS: the pending ticks start late
    const logs = captureLogs();
    await startWorker(prefix, { logger: logs.logger });
    const late = await Promise.all(
      policies.map((catchUp) =>
        logs.waitFor(
          (line) => line.schedule === `catch-up-${catchUp}` && typeof line.firing === "number",
        ),
      ),
    );
    const outageEnd = Date.now();
    for (const catchUp of policies) await untilTicks(errand, `catch-up-${catchUp}`, 4);
    const [none, last, all] = await Promise.all(
      policies.map((catchUp) => ticksOf(errand, `catch-up-${catchUp}`)),
    );
    for (const ticks of [none!, last!, all!]) expectNoDuplicates(ticks);
    const inOutage = (ticks: number[]) =>
      ticks.filter((tick) => tick > outageStart + 1_000 && tick < outageEnd - 2_000);

    expect(late.map((line) => line.firing)).toEqual([0, 1, expect.any(Number)]);
    expect(late[2]!.firing as number).toBeGreaterThanOrEqual(6);
    expect(inOutage(none!)).toEqual([]);
    expect(inOutage(last!)).toEqual([]);
    // `all` fired every tick the outage missed.
    const missed = inOutage(all!);
    expect(missed.length).toBeGreaterThanOrEqual(3);
    expect(missed.at(-1)! - missed[0]!).toBe((missed.length - 1) * 1_000);
    for (const catchUp of policies) await errand.schedules.remove(`catch-up-${catchUp}`);
  });

  it("refuses a bad schedule at upsert with a coded error, writing nothing", async () => {
    const prefix = uniqueKeyPrefix("schedules-refused");
    await startWorker(prefix);
    const errand = openClient(prefix);
    const good = { id: "refused", agent: "ticking", input: { label: "x" }, cron: "*/5 * * * *" };
    const keysBefore = await scheduleAndRunKeys(prefix);
    const refusals: [Record<string, unknown>, string][] = [
      [{ ...good, cron: "61 * * * *" }, "invalid_spec"],
      [{ ...good, cron: "every tuesday" }, "invalid_spec"],
      [{ ...good, timezone: "Mars/Olympus_Mons" }, "invalid_spec"],
      [{ ...good, agent: "nobody" }, "unknown_agent"],
      [{ ...good, input: { label: 42 } }, "invalid_input"],
      [{ ...good, cron: undefined, everyMs: 999 }, "invalid_spec"],
      [{ ...good, cron: undefined }, "invalid_spec"],
      [{ ...good, id: "no spaces" }, "invalid_spec"],
      [{ ...good, overlap: "queue" }, "invalid_spec"],
    ];
    for (const [spec, code] of refusals) {
      const refused = await errand.schedules.upsert(spec).catch((error: unknown) => error);
      expect(isErrandError(refused, code as never), JSON.stringify(spec)).toBe(true);
    }
    expect(await scheduleAndRunKeys(prefix)).toEqual(keysBefore);
    expect(await errand.schedules.list()).toEqual([]);
    const missing = await errand.schedules.pause("refused").catch((error: unknown) => error);
    expect(isErrandError(missing, "not_found")).toBe(true);

    const listed = await errand.schedules.upsert({ ...good, timezone: "Europe/Paris" });
    expect(listed).toMatchObject({
      id: "refused",
      paused: false,
      overlap: "skip",
      catchUp: "last",
    });
    expect(Date.parse(listed.nextFireAt!)).toBeGreaterThan(Date.now());
    await errand.schedules.remove("refused");
  });
});
