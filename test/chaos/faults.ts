/**
 * The faults the harness injects: a worker killed with SIGKILL, the collector
 * killed with SIGKILL mid-batch (each replaced at once by a fresh process), a
 * worker stopped with SIGSTOP until another took one of its runs over and
 * then resumed (a zombie), Redis shut down and started again on its AOF, and
 * Redis out of memory: its `maxmemory` lowered to just above the memory it
 * uses, so that it soon refuses writes, for `--oom-ms`, then raised again.
 * Each fault is measured: the time from the fault until every run that was
 * unsettled at that moment has a stored result (its recovery).
 */
import { ErrandError } from "@errand/core";
import type { Errand } from "@errand/engine";
import type { Redis } from "ioredis";
import type { ChaosProcess } from "./chaos-process.js";
import type { ChaosCluster } from "./cluster-of-processes.js";
import { type Random, randomInt } from "./random.js";
import { settledWithin, unsettledNow } from "./settle.js";

/** The kinds of faults. */
export type FaultKind = "worker-kill" | "collector-kill" | "redis-restart" | "zombie" | "oom";

/** One injected fault and how long the cluster took to recover from it. */
export interface FaultRecord {
  kind: FaultKind;
  target: string;
  /** ms since the workload started firing. */
  atMs: number;
  /** The runs unsettled when it struck. */
  inFlight: number;
  /** ms from the fault until each of those runs settled; undefined when some never did. */
  recoveryMs?: number;
  /** For a zombie: whether another worker started one of its runs while it was stopped. */
  takenOver?: boolean;
  /** For Redis out of memory: how long its `maxmemory` stayed lowered, in ms. */
  heldMs?: number;
}

/** What a fault needs. */
export interface FaultContext {
  cluster: ChaosCluster;
  errand: Errand;
  random: Random;
  /** When the workload started firing (epoch ms). */
  startedAt: number;
  /** The runIds fired so far (grows while the workload runs). */
  firedRunIds(): readonly string[];
  recoveryTimeoutMs: number;
  /** How Redis is brought down: SIGTERM (a clean shutdown that flushes the AOF) or SIGKILL (up to a second of writes lost). */
  redisSignal: "SIGTERM" | "SIGKILL";
  /** How long a zombie stays stopped at most, waiting for another worker to take one of its runs over. */
  takeOverTimeoutMs: number;
  /** A client of the harness's own, for Redis's configuration. */
  admin: Redis;
  /** How long Redis stays out of memory. */
  oomMs: number;
}

function removeFrom<T>(list: T[], item: T): void {
  const index = list.indexOf(item);
  if (index >= 0) list.splice(index, 1);
}

/** The target of a fault that found no process up to strike (it is still measured). */
const NO_TARGET = "none up";

/** Strikes one fault of `kind` now and resolves once recovery is measured. */
export async function strike(context: FaultContext, kind: FaultKind): Promise<FaultRecord> {
  const inFlight = await unsettledNow(context.errand, context.firedRunIds());
  const struckAt = Date.now();
  const { target, takenOver, heldMs } = await inject(context, kind, inFlight);
  const settled = await settledWithin(context.errand, inFlight, context.recoveryTimeoutMs);
  return {
    kind,
    target,
    atMs: struckAt - context.startedAt,
    inFlight: inFlight.length,
    ...(settled.size === inFlight.length ? { recoveryMs: Date.now() - struckAt } : {}),
    ...(takenOver === undefined ? {} : { takenOver }),
    ...(heldMs === undefined ? {} : { heldMs }),
  };
}

/**
 * The Redis fault under way: restarts and shortages of memory wait for each
 * other (one server, one port; a restart would end a shortage early).
 */
let redisFaults: Promise<unknown> = Promise.resolve();

/** Runs `fault` on Redis after any Redis fault already under way. */
function afterRedisFaults<T>(fault: () => Promise<T>): Promise<T> {
  const next = redisFaults.then(fault);
  redisFaults = next.catch(() => undefined);
  return next;
}

/** Kills Redis and starts it again on its AOF. */
async function restartRedis(context: FaultContext): Promise<void> {
  const { redis } = context.cluster;
  await redis.kill(context.redisSignal);
  await redis.restart();
}

/** How far above the memory Redis uses its `maxmemory` is set: it runs out within moments. */
const OOM_HEADROOM_BYTES = 32 * 1024;

/** Lowers Redis's `maxmemory` to just above what it uses for `oomMs`, then sets it back; resolves with how long it was lowered. */
async function exhaustRedisMemory(context: FaultContext): Promise<number> {
  const { admin } = context;
  const [, previous = "0"] = (await admin.config("GET", "maxmemory")) as string[];
  const used = Number(/^used_memory:(\d+)/m.exec(await admin.info("memory"))?.[1]);
  if (!Number.isFinite(used)) throw new ErrandError("internal", "INFO memory gave no used_memory");
  await admin.config("SET", "maxmemory", String(used + OOM_HEADROOM_BYTES));
  const loweredAt = Date.now();
  try {
    await new Promise((resolve) => setTimeout(resolve, context.oomMs));
  } finally {
    await admin.config("SET", "maxmemory", previous);
  }
  return Date.now() - loweredAt;
}

/** Injects the fault; resolves once it is over (a zombie resumed, Redis back up). */
async function inject(
  context: FaultContext,
  kind: FaultKind,
  inFlight: readonly string[],
): Promise<{ target: string; takenOver?: boolean; heldMs?: number }> {
  const { cluster } = context;
  switch (kind) {
    case "redis-restart":
      await afterRedisFaults(() => restartRedis(context));
      return { target: "redis-server" };
    case "oom":
      return {
        target: "redis-server",
        heldMs: await afterRedisFaults(() => exhaustRedisMemory(context)),
      };
    case "zombie": {
      const holders = await holdersOf(context.errand, inFlight);
      const busy = cluster.workers.filter((worker) =>
        [...holders.values()].includes(worker.workerId ?? ""),
      );
      const victim = pick(context, busy.length > 0 ? busy : cluster.workers);
      if (victim === undefined) return { target: NO_TARGET };
      await victim.signal("SIGSTOP");
      const held = [...holders].filter(([, holder]) => holder === victim.workerId);
      const takenOver = await waitForTakeOver(
        context,
        victim,
        held.map(([runId]) => runId),
      );
      await victim.signal("SIGCONT");
      return { target: victim.name, takenOver };
    }
    case "worker-kill":
    case "collector-kill": {
      const pool = kind === "worker-kill" ? cluster.workers : cluster.collectors;
      const victim = pick(context, pool);
      if (victim === undefined) return { target: NO_TARGET };
      removeFrom(pool, victim); // at once, so a fault striking meanwhile picks another process
      await victim.signal("SIGKILL");
      // The replacement starts beside the survivors; recovery does not wait for it.
      void (kind === "worker-kill" ? cluster.addWorker() : cluster.addCollector()).catch(
        (error: unknown) => process.stderr.write(`chaos: a replacement did not start: ${error}\n`),
      );
      return { target: victim.name };
    }
  }
}

/** A random process of `pool`; undefined when none is up (every one struck, replacements still starting). */
function pick(context: FaultContext, pool: readonly ChaosProcess[]): ChaosProcess | undefined {
  return pool[randomInt(context.random, 0, pool.length - 1)];
}

/**
 * Resolves once run `runId` logs a `run-started` by another worker than
 * `workerId`: followed on its log, never polled. Rejects when the run
 * settles first or `signal` aborts.
 */
export async function startedElsewhere(
  errand: Errand,
  runId: string,
  workerId: string | undefined,
  signal: AbortSignal,
): Promise<void> {
  for await (const event of errand.events(runId, { follow: true, signal })) {
    if (event.type === "run-started" && event.data.workerId !== workerId) return;
  }
  throw new ErrandError("internal", `${runId} was not taken over`);
}

/**
 * Whether another worker starts one of the runs in `held` (a `run-started`
 * with another workerId than the stopped `victim`'s) within the take-over
 * timeout.
 */
async function waitForTakeOver(
  context: FaultContext,
  victim: ChaosProcess,
  held: readonly string[],
): Promise<boolean> {
  if (held.length === 0) return false;
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), context.takeOverTimeoutMs);
  try {
    return await Promise.any(
      held.map((runId) => startedElsewhere(context.errand, runId, victim.workerId, abort.signal)),
    ).then(
      () => true,
      () => false,
    );
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
}

/** For each unsettled run among `runIds`, the workerId that started its latest attempt. */
async function holdersOf(errand: Errand, runIds: readonly string[]): Promise<Map<string, string>> {
  const holders = new Map<string, string>();
  for (const runId of runIds) {
    let holder: string | undefined;
    for await (const event of errand.events(runId)) {
      if (event.type === "run-started") holder = event.data.workerId;
      if (event.type === "finished" || event.type === "failed" || event.type === "cancelled") {
        holder = undefined;
      }
    }
    if (holder !== undefined) holders.set(runId, holder);
  }
  return holders;
}
