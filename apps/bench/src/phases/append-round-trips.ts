/**
 * How many round trips the worker spends on appends per step. A small
 * sample of runs goes end to end while a `MONITOR` connection watches every
 * command the server receives; the calls of the store's append script are
 * recognised by their first key (a run's log, `…:run:<runId>:log`). An
 * append whose first event is `run-queued` is the client's (`fire`); every
 * other one is the worker's: a `run-started` alone (an attempt announced on
 * its own, before its first step), or a step's events (the first step of an
 * optimistic attempt carries its `run-started` with it).
 * Commands a script runs itself (MONITOR shows them as `lua`) are not round
 * trips and are skipped. MONITOR slows the server, so this phase measures
 * counts only, never time.
 */
import { ErrandError } from "@errand/core";
import type { Redis } from "ioredis";
import type { BenchRedis } from "../bench-redis.js";
import { fireBenchRuns, settledResult, startErrandStack, waitForResults } from "../errand-stack.js";

/** What the sample counted. */
export interface AppendRoundTrips {
  /** The worker's append calls per step of the sampled runs. */
  perStep: number;
  /** The worker's append calls that announced an attempt on its own (`run-started` alone), per run. */
  attemptAppendsPerRun: number;
  /** The worker's append calls that carried a step's events, per step. */
  stepAppendsPerStep: number;
}

const SETTLE_TIMEOUT_MS = 120_000;
const RUN_LOG_KEY = /:run:[^:]+:log$/;

/** The events an append announcing an attempt on its own carries. */
const ATTEMPT_EVENTS = new Set(["run-started", "waitpoint-timed-out"]);

/**
 * The event types of an append call (`EVALSHA sha 10 k1 … k10 runId fixed,
 * then type at data of each event`, `fixed` the call's seven fixed arguments
 * as one, or with 11 keys when an idempotency key is given; see
 * `packages/store/lua/append-11.lua`), or `undefined` for another command.
 */
function appendedEventTypes(args: readonly string[]): string[] | undefined {
  const [command, , numberOfKeys, firstKey] = args;
  if (!/^evalsha$|^eval$/i.test(command ?? "")) return undefined;
  if (numberOfKeys !== "10" && numberOfKeys !== "11") return undefined;
  if (!RUN_LOG_KEY.test(firstKey ?? "")) return undefined;
  // args: command, sha, numkeys, the keys, then ARGV: runId, the fixed arguments, then the events.
  const events = args.slice(3 + Number(numberOfKeys) + 2);
  return events.filter((_, index) => index % 3 === 0);
}

/** Counts append round trips over `runs` bench runs. */
export async function measureAppendRoundTrips(
  redis: BenchRedis,
  runs: number,
  concurrency: number,
): Promise<AppendRoundTrips> {
  await redis.flush();
  const monitor = (await redis.admin.monitor()) as Redis;
  // ioredis marks a connection monitoring only once MONITOR's OK is handled, so a
  // monitored line read in the same chunk as that OK finds no command waiting and
  // is emitted as a "Command queue state error", which would throw without a
  // listener. Such a line predates the sample: its runs are fired after this.
  monitor.on("error", () => {});
  const stack = await startErrandStack({ redis, concurrency }).catch((error: unknown) => {
    monitor.disconnect();
    throw error;
  });
  const counts = { attempts: 0, other: 0 };
  monitor.on("monitor", (_time: string, args: string[], source: string) => {
    if (source === "lua") return;
    const types = appendedEventTypes(args);
    if (types === undefined || types[0] === "run-queued") return;
    if (types.every((type) => ATTEMPT_EVENTS.has(type))) counts.attempts += 1;
    else counts.other += 1;
  });
  try {
    const runIds = await fireBenchRuns(stack, runs);
    await waitForResults(stack.errand, runIds, SETTLE_TIMEOUT_MS);
    monitor.disconnect();
    const results = await Promise.all(runIds.map((runId) => settledResult(stack.errand, runId)));
    const steps = results.reduce((sum, result) => sum + result.steps, 0);
    if (steps === 0) throw new ErrandError("internal", "the sampled runs took no step");
    return {
      perStep: (counts.attempts + counts.other) / steps,
      attemptAppendsPerRun: counts.attempts / runs,
      stepAppendsPerStep: counts.other / steps,
    };
  } finally {
    monitor.disconnect();
    await stack.stop();
  }
}
