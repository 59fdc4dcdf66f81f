/**
 * Schedules end to end, with in-process workers and clients: one run per
 * tick across three workers and two clients, `overlap: "skip"` across two
 * workers, a ticker that costs nothing until a schedule exists, every
 * refusal at upsert with nothing written, and — each on a Redis of its own
 * with an append-only file, restarted under it — a Redis and worker restart
 * that keep the schedule and its next tick, and `catchUp` after a 10 s Redis
 * outage that the workers live through. The tests run at once. Runs are
 * counted from their logs, by the tick their metadata names — never from
 * the schedule's own bookkeeping.
 */
import { setTimeout as delay } from "node:timers/promises";
import { isErrandError, type RunEvent } from "@errand/core";
import { defineAgent, defineTool, scriptedModel } from "@errand/runtime";
import { type RedisServer, startRedis, uniqueKeyPrefix } from "@errand/testing";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, type ExpectStatic, it } from "vitest";
import { z } from "zod";
import { createErrand, type Errand } from "../client/client.js";
import { createLogger } from "../logger.js";
import { captureLogs } from "../test-support/log-capture.js";
import { createWorker, type WorkerOptions } from "../worker/create-worker.js";
import { SCHEDULE_METADATA_KEY, TICK_METADATA_KEY } from "./fire-tick.js";
import { SCHEDULES_WATCH_MS } from "./schedule-ticker.js";

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

/** A Redis the tests of this file share (none restarts it). */
let shared: Stack;
/** What the file closes at its end, last opened first. */
const closers: (() => Promise<void>)[] = [];

/** A Redis server and a connection of the test's own to read it. */
interface Stack {
  server: RedisServer;
  redis: Redis;
}

/** Starts a Redis (with an append-only file, so that a restart keeps its data), closed at the end of the file. */
async function startStack(): Promise<Stack> {
  const server = await startRedis({ appendonly: true, appendfsync: "always" });
  const redis = new Redis(server.url);
  redis.on("error", () => {}); // it reconnects after a restart
  closers.push(async () => {
    redis.disconnect();
    await server.stop();
  });
  return { server, redis };
}

beforeAll(async () => {
  shared = await startStack();
});
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

/** A worker of both agents under `prefix`, closed at the end of the file unless closed before. */
async function startWorker(
  stack: Stack,
  prefix: string,
  options: Partial<Pick<WorkerOptions, "logger" | "schedules">> = {},
) {
  const worker = await createWorker({
    connection: stack.server.url,
    prefix,
    agents: [ticking, lingering],
    concurrency: 4,
    logger: silent,
    ...options,
  });
  closers.push(() => worker.close({ graceMs: 500 }));
  return worker;
}

/** A client under `prefix`, closed at the end of the file. */
function openClient(stack: Stack, prefix: string): Errand {
  const errand = createErrand({ connection: stack.server.url, prefix, logger: silent });
  closers.push(() => errand.close());
  return errand;
}

/** Every run fired under `errand`'s prefix with its `run-queued`, read from its log. */
async function runsUnder(
  stack: Stack,
  errand: Errand,
): Promise<{ runId: string; queued: RunEvent }[]> {
  const heads = await stack.redis.keys(`${errand.keys.prefix}:*:run:*`);
  const runIds = heads.flatMap((key) => /:run:(R\w+)$/.exec(key)?.[1] ?? []);
  return Promise.all(
    runIds.map(async (runId) => ({ runId, queued: (await errand.store.readLog(runId))[0]! })),
  );
}

/** The ticks (ms) of the runs schedule `id` made, from their metadata, oldest first. */
async function ticksOf(stack: Stack, errand: Errand, id: string): Promise<number[]> {
  const runs = await runsUnder(stack, errand);
  return runs
    .map(({ queued }) => (queued.data as { metadata?: Record<string, string> }).metadata ?? {})
    .filter((metadata) => metadata[SCHEDULE_METADATA_KEY] === id)
    .map((metadata) => Date.parse(metadata[TICK_METADATA_KEY]!))
    .sort((a, b) => a - b);
}

/** Waits until schedule `id` made runs for at least `count` ticks after `after` (generously bounded); resolves with all its ticks. */
async function untilTicks(
  stack: Stack,
  errand: Errand,
  id: string,
  count: number,
  after = 0,
): Promise<number[]> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ticks = await ticksOf(stack, errand, id);
    if (ticks.filter((tick) => tick > after).length >= count) return ticks;
    if (Date.now() > deadline) throw new Error(`schedule ${id} made ${ticks.length} runs in 60 s`);
    await delay(250);
  }
}

/**
 * {@link untilTicks}, then until its ticks come a second apart, for at most
 * 60 s more: a ticker fires catch-up ticks at once (`TICKER_CONCURRENCY`), so
 * one tick's run can be listed before the tick before it. A tick never fired
 * stays a gap, which the caller's assertion then names.
 */
async function untilTicksEverySecond(
  stack: Stack,
  errand: Errand,
  id: string,
  count: number,
  after: number,
): Promise<number[]> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ticks = await untilTicks(stack, errand, id, count, after);
    const gapless = ticks.every((tick, i) => i === 0 || tick - ticks[i - 1]! === 1_000);
    if (gapless || Date.now() > deadline) return ticks;
    await delay(250);
  }
}

/**
 * The keys under `prefix` a schedule or a run could write: BullMQ's periodic
 * stalled check and the `meta` every BullMQ queue writes as it opens are left out.
 */
async function scheduleAndRunKeys(stack: Stack, prefix: string): Promise<string[]> {
  const keys = await stack.redis.keys(`${prefix}*`);
  return keys
    .filter(
      (key) =>
        (key.includes("schedule") && !/:(stalled-check|meta)$/.test(key)) || key.includes(":run:"),
    )
    .sort();
}

/** How many connections `stack`'s Redis has. */
async function connectionCount(stack: Stack): Promise<number> {
  const info = await stack.redis.info("clients");
  return Number(/connected_clients:(\d+)/.exec(info)![1]);
}

/** `ticks` has no tick twice. */
function expectNoDuplicates(expect: ExpectStatic, ticks: readonly number[]): void {
  expect(new Set(ticks).size).toBe(ticks.length);
}

/** `ticks` is every tick of a one-second schedule from its first to its last, each once. */
function expectEverySecond(expect: ExpectStatic, ticks: readonly number[]): void {
  expect(ticks.every((tick) => tick % 1_000 === 0)).toBe(true);
  expect(ticks.slice(1).map((tick, i) => tick - ticks[i]!)).toEqual(
    ticks.slice(1).map(() => 1_000),
  );
}

describe.concurrent("schedules", () => {
  it("fires each tick of a one-second schedule once across three workers and two clients for 20 s", async ({
    expect,
  }) => {
    const prefix = uniqueKeyPrefix("schedules-once");
    await Promise.all([0, 1, 2].map(() => startWorker(shared, prefix)));
    const [first, second] = [openClient(shared, prefix), openClient(shared, prefix)];
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
    await untilTicks(shared, first, "every-second", 21);
    await first.schedules.pause("every-second");
    // A tick in hand when it paused may still land: let it, then count.
    await delay(1_500);
    const ticks = await ticksOf(shared, first, "every-second");

    expect(ticks.length).toBeGreaterThanOrEqual(21);
    expectEverySecond(expect, ticks);
    expect((await runsUnder(shared, first)).length).toBe(ticks.length);
    const [listed] = await second.schedules.list();
    expect(listed).toMatchObject({
      id: "every-second",
      paused: true,
      lastFireAt: new Date(ticks.at(-1)!).toISOString(),
    });
    expect(listed!.lastRuns.length).toBe(5);
    expect(listed).not.toHaveProperty("nextFireAt");
  });

  it("skips ticks across two workers while the schedule's previous run still runs (overlap: skip)", async ({
    expect,
  }) => {
    const prefix = uniqueKeyPrefix("schedules-skip");
    await Promise.all([startWorker(shared, prefix), startWorker(shared, prefix)]);
    const errand = openClient(shared, prefix);
    await errand.schedules.upsert({ id: "slow", agent: "lingering", input: null, everyMs: 1_000 });
    await untilTicks(shared, errand, "slow", 3);
    await errand.schedules.remove("slow");

    const runs = (await runsUnder(shared, errand)).map(({ runId }) => runId);
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

  it("opens no connection for schedules until one exists, then one", async ({ expect }) => {
    const stack = await startStack();
    const prefix = uniqueKeyPrefix("schedules-lazy");
    const errand = openClient(stack, prefix);
    await errand.schedules.list();
    const before = await connectionCount(stack);
    const without = await startWorker(stack, prefix, { schedules: false });
    await delay(SCHEDULES_WATCH_MS); // every connection it opens is open, as for the one below
    const ofWorker = (await connectionCount(stack)) - before;
    await without.close({ graceMs: 0 });
    await expect.poll(() => connectionCount(stack), { timeout: 10_000 }).toBe(before);

    await startWorker(stack, prefix);
    await delay(2 * SCHEDULES_WATCH_MS); // it looked for a schedule at least twice
    expect((await connectionCount(stack)) - before).toBe(ofWorker);
    expect(await stack.redis.keys(`${prefix}*#schedules*`)).toEqual([]);

    await errand.schedules.upsert({
      id: "lazy",
      agent: "ticking",
      input: { label: "lazy" },
      everyMs: 1_000,
    });
    await untilTicks(stack, errand, "lazy", 1);
    expect((await connectionCount(stack)) - before).toBe(ofWorker + 1);
  });

  it("refuses a bad schedule at upsert with a coded error, writing nothing", async ({ expect }) => {
    const prefix = uniqueKeyPrefix("schedules-refused");
    await startWorker(shared, prefix);
    const errand = openClient(shared, prefix);
    const good = { id: "refused", agent: "ticking", input: { label: "x" }, cron: "*/5 * * * *" };
    const keysBefore = await scheduleAndRunKeys(shared, prefix);
    const refusals: [Record<string, unknown>, string][] = [
      [{ ...good, cron: "61 * * * *" }, "invalid_spec"],
      [{ ...good, cron: "every tuesday" }, "invalid_spec"],
      [{ ...good, cron: "5" }, "invalid_spec"],
      [{ ...good, cron: "* * *" }, "invalid_spec"],
      [{ ...good, cron: "0 0 3 * * * 2027" }, "invalid_spec"],
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
    const shortCron = await errand.schedules
      .upsert({ ...good, cron: "5" })
      .catch((error: unknown) => error);
    expect(String(shortCron)).toContain("it has 1 field; write 5 (minute hour");
    expect(await scheduleAndRunKeys(shared, prefix)).toEqual(keysBefore);
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

  it("keeps the schedule and its next tick across a Redis restart and a worker restart", async ({
    expect,
  }) => {
    const stack = await startStack();
    const prefix = uniqueKeyPrefix("schedules-restart");
    const worker = await startWorker(stack, prefix);
    const errand = openClient(stack, prefix);
    await errand.schedules.upsert({
      id: "durable",
      agent: "ticking",
      input: { label: "durable" },
      everyMs: 1_000,
      catchUp: "all",
    });
    const before = await untilTicks(stack, errand, "durable", 2);
    await worker.close({ graceMs: 500 });
    const [pending] = await errand.schedules.list();
    await stack.server.kill();
    await stack.server.restart();
    const [listed] = await errand.schedules.list();
    expect(listed).toEqual(pending);
    expect(Date.parse(listed!.nextFireAt!)).toBeGreaterThan(before.at(-1)!);

    await startWorker(stack, prefix);
    const after = await untilTicksEverySecond(stack, errand, "durable", 3, before.at(-1)!);
    expect(after).toContain(Date.parse(listed!.nextFireAt!));
    expectEverySecond(expect, after);
  });

  it("catches up after a 10 s Redis outage as each catchUp says, its workers reconnecting", async ({
    expect,
  }) => {
    const stack = await startStack();
    const prefix = uniqueKeyPrefix("schedules-catch-up");
    const logs = captureLogs();
    await Promise.all([
      startWorker(stack, prefix, { logger: logs.logger }),
      startWorker(stack, prefix, { logger: logs.logger }),
    ]);
    const errand = openClient(stack, prefix);
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
    for (const catchUp of policies) await untilTicks(stack, errand, `catch-up-${catchUp}`, 1);
    await stack.server.kill();
    const outageStart = Date.now();
    await delay(10_000); // past LATE_TICK_MS: the pending ticks start late
    await stack.server.restart();
    const outageEnd = Date.now();
    const late = await Promise.all(
      policies.map((catchUp) =>
        logs.waitFor(
          (line) => line.schedule === `catch-up-${catchUp}` && typeof line.firing === "number",
        ),
      ),
    );
    // The same workers tick on after the outage.
    for (const catchUp of policies) {
      await untilTicks(stack, errand, `catch-up-${catchUp}`, 2, outageEnd);
    }
    await untilTicksEverySecond(stack, errand, "catch-up-all", 2, outageEnd);
    const [none, last, all] = await Promise.all(
      policies.map((catchUp) => ticksOf(stack, errand, `catch-up-${catchUp}`)),
    );
    for (const ticks of [none!, last!, all!]) expectNoDuplicates(expect, ticks);
    const inOutage = (ticks: number[]) =>
      ticks.filter((tick) => tick > outageStart + 1_000 && tick < outageEnd - 1_000);

    expect(late.map((line) => line.firing)).toEqual([0, 1, expect.any(Number)]);
    expect(late[2]!.firing as number).toBeGreaterThanOrEqual(9);
    expect(inOutage(none!)).toEqual([]);
    expect(inOutage(last!)).toEqual([]);
    // `all` fired every tick the outage missed, and ticked on every second since.
    expect(inOutage(all!).length).toBeGreaterThanOrEqual(7);
    expectEverySecond(expect, all!);
  });
});
