/**
 * `overlap` decided once a tick across many tickers: several processes
 * (each a client with connections of its own) handle the same ticks and
 * their neighbours at once, as stalled jobs and overlapping catch-ups make
 * them do. No worker takes the runs, so every run fired stays unsettled —
 * "still running" — until cancelled. Runs are counted from the logs.
 */
import { defineAgent, scriptedModel } from "@errand/runtime";
import { type RedisServer, startRedis, uniqueKeyPrefix } from "@errand/testing";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, type ExpectStatic, it } from "vitest";
import { createErrand, type Errand } from "../client/client.js";
import { createLogger } from "../logger.js";
import { createWorker } from "../worker/create-worker.js";
import { handleTick, type TickContext } from "./fire-tick.js";

const ticking = defineAgent({
  name: "ticking",
  instructions: "Say you ticked.",
  model: scriptedModel(),
  script: [{ say: "ticked" }],
});

const silent = createLogger({ level: "silent" });
/** How many processes handle the ticks, and how many times each handles each tick. */
const PROCESSES = 3;
const HANDLINGS = 2;

let server: RedisServer;
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  server = await startRedis();
});
afterAll(async () => {
  for (const close of closers.reverse()) await close();
  await server?.stop();
});

/** `PROCESSES` tick contexts under `prefix`, each a client and a connection of its own. */
function tickers(prefix: string): { errand: Errand; context: TickContext }[] {
  return Array.from({ length: PROCESSES }, () => {
    const errand = createErrand({ connection: server.url, prefix, logger: silent });
    const redis = new Redis(server.url);
    closers.push(async () => {
      await errand.close();
      redis.disconnect();
    });
    const context: TickContext = {
      fire: (spec) => errand.fire(spec),
      cancel: (runId, reason) => errand.cancel(runId, { reason }),
      readHead: (runId) => errand.store.readHead(runId),
      redis,
      keys: errand.keys,
      logger: silent,
      now: () => Date.now(),
    };
    return { errand, context };
  });
}

/**
 * A schedule `id` of agent `ticking` under a fresh prefix, whose agent a
 * worker registered and left (so nothing takes its runs); its ticks are in
 * the future, on time whenever they are handled.
 */
async function scheduleWithoutWorker(label: string, overlap: "skip" | "cancel-previous") {
  const prefix = uniqueKeyPrefix(label);
  const worker = await createWorker({
    connection: server.url,
    prefix,
    agents: [ticking],
    logger: silent,
    schedules: false,
  });
  await worker.close({ graceMs: 0 });
  const processes = tickers(prefix);
  await processes[0]!.errand.schedules.upsert({
    id: "race",
    agent: "ticking",
    input: null,
    everyMs: 1_000,
    overlap,
  });
  const firstTick = Math.ceil(Date.now() / 1_000) * 1_000 + 60_000;
  return { processes, firstTick };
}

/** Every handling of every tick of `ticks` by every process, at once: per tick, each handling's runIds. */
async function handleAtOnce(
  processes: readonly { context: TickContext }[],
  ticks: readonly number[],
): Promise<string[][][]> {
  return Promise.all(
    ticks.map((tick) =>
      Promise.all(
        processes.flatMap(({ context }) =>
          Array.from({ length: HANDLINGS }, () => handleTick(context, "race", tick)),
        ),
      ),
    ),
  );
}

/** Each tick's handlings agree: every one fired the same run, or none did. Resolves with each tick's run. */
function expectOneVerdictPerTick(expect: ExpectStatic, handlings: readonly string[][][]): string[] {
  return handlings.flatMap((ofTick) => {
    for (const runIds of ofTick) expect(runIds).toEqual(ofTick[0]);
    return ofTick[0]!;
  });
}

/** How many `cancel-requested` run `runId`'s log holds. */
async function cancelRequests(errand: Errand, runId: string): Promise<number> {
  const log = await errand.store.readLog(runId);
  return log.filter((event) => event.type === "cancel-requested").length;
}

describe.concurrent("a tick's overlap, across processes", () => {
  it("skip: one decision a tick, so one run in all while it runs", async ({ expect }) => {
    const { processes, firstTick } = await scheduleWithoutWorker("tick-skip", "skip");
    const { errand } = processes[0]!;
    const ticks = [firstTick, firstTick + 1_000, firstTick + 2_000];

    const handlings = await handleAtOnce(processes, ticks);
    const fired = expectOneVerdictPerTick(expect, handlings);
    expect(fired).toHaveLength(1);
    const [runId] = fired as [string];
    expect((await errand.store.readHead(runId))?.settledAt).toBeUndefined();

    // Its run settled, the ticks decided keep their verdicts; the next tick fires.
    await errand.cancel(runId);
    expect((await errand.store.readHead(runId))?.settledAt).toBeDefined();
    expect(expectOneVerdictPerTick(expect, await handleAtOnce(processes, ticks))).toEqual(fired);
    const [next] = expectOneVerdictPerTick(
      expect,
      await handleAtOnce(processes, [firstTick + 3_000]),
    );
    expect(next).toBeDefined();
    expect(next).not.toBe(runId);
  });

  it("cancel-previous: each run cancelled once, by one tick, and the newest left running", async ({
    expect,
  }) => {
    const { processes, firstTick } = await scheduleWithoutWorker("tick-cancel", "cancel-previous");
    const { errand } = processes[0]!;
    const [first] = await handleTick(processes[0]!.context, "race", firstTick);

    const handlings = await handleAtOnce(processes, [firstTick + 1_000, firstTick + 2_000]);
    const fired = [first!, ...expectOneVerdictPerTick(expect, handlings)];
    expect(fired.length).toBeGreaterThanOrEqual(2);
    const newest = fired.at(-1)!;
    for (const runId of fired) {
      expect(await cancelRequests(errand, runId), runId).toBe(runId === newest ? 0 : 1);
    }
    expect((await errand.store.readHead(newest))?.settledAt).toBeUndefined();
  });
});
