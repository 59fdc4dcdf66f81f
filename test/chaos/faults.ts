/**
 * Striking a fault and measuring the recovery from it. Each kind lives in its
 * own module; this one aims it (a process fault waits for a live target:
 * `live-targets.ts`; a rolling deploy for its Redis fault), strikes it, then
 * measures: the time from the fault until every run that was unsettled at
 * that moment has a stored result (its recovery; it may take the settle time
 * from the last fault struck meanwhile, as later faults strike the same runs
 * again) and, for a worker killed
 * or stopped, until every run it held runs again on another worker (its
 * take-over), read from the runs' logs. A fault that found no live target
 * is recorded as not struck.
 */
import type { ChaosProcess } from "./chaos-process.js";
import { killCollector } from "./collector-kill.js";
import { failOverMaster } from "./failover.js";
import {
  type FaultContext,
  type FaultKind,
  type FaultRecord,
  type Injected,
  REDIS_FAULT_KINDS,
} from "./fault-context.js";
import {
  type AimedWorker,
  aimAtBusyWorker,
  aimAtCollector,
  someRunInFlight,
} from "./live-targets.js";
import { exhaustRedisClients } from "./maxclients.js";
import { failRedisSaves } from "./misconf.js";
import { exhaustRedisMemory } from "./oom.js";
import { afterRedisFaults } from "./redis-faults.js";
import { freezeRedis } from "./redis-freeze.js";
import { restartRedis } from "./redis-restart.js";
import { slowRedis } from "./redis-slow.js";
import { aimDeploy, deployWorkers } from "./rolling-deploy.js";
import { settledBy, unsettledNow } from "./settle.js";
import { killWorker } from "./worker-kill.js";
import { stoppedOnce, stopWorker } from "./zombie.js";

/** A fault aimed: ready to strike its target, or nothing to strike (`undefined`). */
type Strike = () => Promise<Injected>;

/** Aims a fault of `kind`: waits for its target; undefined when none came up. */
async function aim(context: FaultContext, kind: FaultKind): Promise<Strike | undefined> {
  const atWorker = async (
    hit: (context: FaultContext, aimed: AimedWorker) => Promise<Injected>,
    spared?: ReadonlySet<ChaosProcess>,
  ) => {
    const aimed = await aimAtBusyWorker(context, spared);
    return aimed === undefined ? undefined : () => hit(context, aimed);
  };
  switch (kind) {
    case "worker-kill":
      return atWorker(killWorker);
    case "zombie":
      return atWorker(stopWorker, stoppedOnce);
    case "collector-kill": {
      const victim = await aimAtCollector(context);
      return victim === undefined ? undefined : () => killCollector(context, victim);
    }
    case "rolling-deploy":
      await aimDeploy(context);
      return () => deployWorkers(context);
    case "redis-restart":
      return () => restartRedis(context, "SIGTERM");
    case "redis-kill":
      return () => restartRedis(context, "SIGKILL");
    case "redis-freeze":
      return () => freezeRedis(context);
    case "redis-slow":
      return () => slowRedis(context);
    case "oom":
      return () => exhaustRedisMemory(context);
    case "maxclients":
      return () => exhaustRedisClients(context);
    case "misconf":
      return () => failRedisSaves(context);
    case "failover":
      return () => failOverMaster(context);
  }
}

/** A fault struck: when, the runs then in flight, and what injecting it found. */
interface Struck {
  struckAt: number;
  inFlight: string[];
  injected: Injected;
}

/** Strikes `hit` now, noting the runs in flight. */
async function strikeNow(context: FaultContext, hit: Strike): Promise<Struck> {
  const inFlight = await unsettledNow(context.errand, context.firedRunIds(), context.clientCalls);
  const struckAt = Date.now();
  return { struckAt, inFlight, injected: await hit() };
}

/**
 * Aims and strikes one fault of `kind` now; resolves once its recovery is
 * measured. A Redis fault strikes once the Redis faults before it are over
 * and some run is in flight; its recovery is measured from then.
 */
export async function strike(context: FaultContext, kind: FaultKind): Promise<FaultRecord> {
  const hit = await aim(context, kind);
  if (hit === undefined) {
    context.onStruck();
    const atMs = Date.now() - context.startedAt;
    return { kind, target: "no live target", struck: false, atMs, inFlight: 0 };
  }
  const {
    struckAt,
    inFlight,
    injected: { takenOverAt, ...injected },
  } = REDIS_FAULT_KINDS.has(kind)
    ? await afterRedisFaults(async () => {
        await someRunInFlight(context);
        return strikeNow(context, hit);
      })
    : await strikeNow(context, hit);
  context.onStruck();
  const struckAtMs = struckAt - context.startedAt;
  const settled = await settledBy(
    context.errand,
    inFlight,
    context.recoveryDeadline,
    context.clientCalls,
  );
  return {
    kind,
    struck: true,
    atMs: struckAtMs,
    inFlight: inFlight.length,
    ...injected,
    ...(settled.runIds.size === inFlight.length
      ? { recoveryMs: Math.max(0, settled.lastAt - struckAt) }
      : {}),
    ...(takenOverAt === undefined ? {} : { takeOverMs: takenOverAt - struckAt }),
  };
}
