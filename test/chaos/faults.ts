/**
 * The faults the harness injects: a worker holding runs killed with SIGKILL,
 * the collector killed with SIGKILL mid-batch (each replaced at once by a
 * fresh process), a worker holding runs stopped with SIGSTOP until others
 * took its runs over and then resumed (a zombie), Redis shut down and started again on its AOF, and
 * Redis out of memory: its `maxmemory` lowered to just above the memory it
 * uses, so that it soon refuses writes, for `--oom-ms`, then raised again.
 * Each fault is measured: the time from the fault until every run that was
 * unsettled at that moment has a stored result (its recovery) and, for a
 * worker killed or stopped, until every run it held runs again on another
 * worker (its take-over), read from the runs' logs.
 */
import { ErrandError, isTerminalEventType } from "@errand/core";
import type { Errand } from "@errand/engine";
import type { RedisServer } from "@errand/testing";
import type { Cluster, Redis } from "ioredis";
import type { ChaosProcess } from "./chaos-process.js";
import type { ChaosCluster } from "./cluster-of-processes.js";
import { type Random, randomInt } from "./random.js";
import { settledWithin, unsettledNow } from "./settle.js";

/** The kinds of faults. */
export type FaultKind =
  | "worker-kill"
  | "collector-kill"
  | "redis-restart"
  | "zombie"
  | "oom"
  | "failover";

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
  /** For a worker killed or stopped: the runs it held (running, neither parked nor ended). */
  held?: number;
  /**
   * For a worker killed or stopped that held runs: ms from the fault until
   * each of them ran again on another worker (a `run-started` of a new
   * attempt), ended or parked; undefined when some did not within the wait.
   */
  takeOverMs?: number;
  /** For Redis out of memory: how long its `maxmemory` stayed lowered, in ms. */
  heldMs?: number;
  /** For a failover: ms from the master's SIGKILL until its replica was promoted and the cluster ok. */
  promotedAfterMs?: number;
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
  /** How long a zombie stays stopped at most, waiting for other workers to take its runs over. */
  takeOverTimeoutMs: number;
  /** A client of the harness's own, for Redis's configuration. */
  admin: Redis | Cluster;
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
  const { target, heldMs, held, takenOverAt, promotedAfterMs } = await inject(
    context,
    kind,
    inFlight,
  );
  const settled = await settledWithin(context.errand, inFlight, context.recoveryTimeoutMs);
  return {
    kind,
    target,
    atMs: struckAt - context.startedAt,
    inFlight: inFlight.length,
    ...(settled.size === inFlight.length ? { recoveryMs: Date.now() - struckAt } : {}),
    ...(held === undefined ? {} : { held }),
    ...(takenOverAt === undefined ? {} : { takeOverMs: takenOverAt - struckAt }),
    ...(heldMs === undefined ? {} : { heldMs }),
    ...(promotedAfterMs === undefined ? {} : { promotedAfterMs }),
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

/** The one `redis-server` of the chaos cluster; throws on a Redis Cluster, whose faults are failovers. */
function singleServer(context: FaultContext): RedisServer {
  const { redis } = context.cluster;
  if (redis.kind === "server") return redis.server;
  throw new ErrandError("invalid_spec", "on a Redis Cluster, Redis faults are --failovers");
}

/** Kills Redis and starts it again on its AOF. */
async function restartRedis(context: FaultContext): Promise<void> {
  const server = singleServer(context);
  await server.kill(context.redisSignal);
  await server.restart();
}

/** SIGKILLs a random master of the Redis Cluster; resolves once its replica is promoted and it rejoined as a replica. */
async function failOverMaster(context: FaultContext): Promise<Injected> {
  const { redis } = context.cluster;
  if (redis.kind !== "cluster") {
    throw new ErrandError("invalid_spec", "a failover needs the Redis Cluster (--cluster)");
  }
  const failover = await redis.cluster.failOver(randomInt(context.random, 0, 2));
  return { target: `master :${failover.killedPort}`, promotedAfterMs: failover.promotedAfterMs };
}

/** How far above the memory Redis uses its `maxmemory` is set: it runs out within moments. */
const OOM_HEADROOM_BYTES = 32 * 1024;

/** Lowers Redis's `maxmemory` to just above what it uses for `oomMs`, then sets it back; resolves with how long it was lowered. */
async function exhaustRedisMemory(context: FaultContext): Promise<number> {
  singleServer(context);
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

/** What injecting a fault found. */
interface Injected {
  target: string;
  /** For Redis out of memory: how long it lasted, in ms. */
  heldMs?: number;
  /** For a worker fault: how many runs its victim held. */
  held?: number;
  /** For a worker fault whose victim held runs: when (epoch ms) every one ran again elsewhere, if it did. */
  takenOverAt?: number;
  /** For a failover: how long the promotion took, in ms. */
  promotedAfterMs?: number;
}

/**
 * Injects the fault; resolves once it is over (a zombie resumed, Redis back
 * up) and, for a killed worker, once its runs ran again elsewhere.
 */
async function inject(
  context: FaultContext,
  kind: FaultKind,
  inFlight: readonly string[],
): Promise<Injected> {
  const { cluster } = context;
  switch (kind) {
    case "redis-restart":
      await afterRedisFaults(() => restartRedis(context));
      return { target: "redis-server" };
    case "failover":
      return afterRedisFaults(() => failOverMaster(context));
    case "oom":
      return {
        target: "redis-server",
        heldMs: await afterRedisFaults(() => exhaustRedisMemory(context)),
      };
    case "collector-kill": {
      const victim = pick(context, cluster.collectors);
      if (victim === undefined) return { target: NO_TARGET };
      removeFrom(cluster.collectors, victim); // at once, so a fault striking meanwhile picks another
      await victim.signal("SIGKILL");
      replace(cluster.addCollector());
      return { target: victim.name };
    }
    case "zombie":
    case "worker-kill": {
      const holdings = await holdingsOf(context.errand, inFlight);
      const victim = pickBusy(context, holdings);
      if (victim === undefined) return { target: NO_TARGET };
      const held = runsHeldBy(holdings, victim);
      if (kind === "zombie") {
        await victim.signal("SIGSTOP");
        const takenOverAt = await ranAgainElsewhere(context, held, context.takeOverTimeoutMs);
        await victim.signal("SIGCONT");
        return { target: victim.name, held: held.size, ...definedAt(takenOverAt) };
      }
      removeFrom(cluster.workers, victim); // at once, so a fault striking meanwhile picks another
      await victim.signal("SIGKILL");
      // The replacement starts beside the survivors; the take-over does not wait for it.
      replace(cluster.addWorker());
      const takenOverAt = await ranAgainElsewhere(context, held, context.recoveryTimeoutMs);
      return { target: victim.name, held: held.size, ...definedAt(takenOverAt) };
    }
  }
}

function definedAt(takenOverAt: number | undefined): { takenOverAt?: number } {
  return takenOverAt === undefined ? {} : { takenOverAt };
}

/** Lets a replacement start in the background, saying so should it fail. */
function replace(starting: Promise<ChaosProcess>): void {
  void starting.catch((error: unknown) =>
    process.stderr.write(`chaos: a replacement did not start: ${error}\n`),
  );
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

/** A random worker among those holding runs in `holdings`, else any; undefined when none is up. */
function pickBusy(
  context: FaultContext,
  holdings: ReadonlyMap<string, Holding>,
): ChaosProcess | undefined {
  const holders = new Set([...holdings.values()].map((holding) => holding.workerId));
  const busy = context.cluster.workers.filter((worker) => holders.has(worker.workerId ?? ""));
  return pick(context, busy.length > 0 ? busy : context.cluster.workers);
}

/** The runs of `holdings` that `worker` holds, each with the seq of its attempt's `run-started`. */
function runsHeldBy(
  holdings: ReadonlyMap<string, Holding>,
  worker: ChaosProcess,
): Map<string, number> {
  return new Map(
    [...holdings]
      .filter(([, holding]) => holding.workerId === worker.workerId)
      .map(([runId, holding]) => [runId, holding.startedSeq]),
  );
}

/**
 * When (epoch ms) every run of `held` (runId → the seq of its holder's
 * `run-started`) ran again: a later `run-started` (its holder is down, so
 * another worker's), or it ended or parked. Undefined when some did not
 * within `timeoutMs`. Followed on the runs' logs, never polled.
 */
async function ranAgainElsewhere(
  context: FaultContext,
  held: ReadonlyMap<string, number>,
  timeoutMs: number,
): Promise<number | undefined> {
  if (held.size === 0) return undefined;
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  try {
    await Promise.all(
      [...held].map(async ([runId, startedSeq]) => {
        for await (const event of context.errand.events(runId, {
          follow: true,
          afterSeq: startedSeq,
          signal: abort.signal,
        })) {
          if (event.type === "run-started" || event.type === "run-parked") return;
          if (isTerminalEventType(event.type)) return;
        }
        throw new ErrandError("internal", `${runId}: its log ended without running again`);
      }),
    );
    return Date.now();
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
}

/** The worker holding a run, and the seq of the `run-started` of its attempt. */
interface Holding {
  workerId: string;
  startedSeq: number;
}

/**
 * For each unsettled run among `runIds` that a worker is running (started,
 * neither parked nor ended since), who holds it.
 */
export async function holdingsOf(
  errand: Errand,
  runIds: readonly string[],
): Promise<Map<string, Holding>> {
  const holdings = new Map<string, Holding>();
  for (const runId of runIds) {
    let holding: Holding | undefined;
    for await (const event of errand.events(runId)) {
      if (event.type === "run-started") {
        holding = { workerId: event.data.workerId, startedSeq: event.seq };
      }
      if (event.type === "run-parked" || isTerminalEventType(event.type)) holding = undefined;
    }
    if (holding !== undefined) holdings.set(runId, holding);
  }
  return holdings;
}
