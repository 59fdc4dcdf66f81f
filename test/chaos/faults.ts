/**
 * The faults the harness injects: a worker killed with SIGKILL, the collector
 * killed with SIGKILL mid-batch and started again. Each killed process is
 * replaced by a fresh one (started at once, beside the survivors) and each fault is measured: the time from the fault until every run that was
 * unsettled at that moment has a stored result (its recovery).
 */
import { ErrandError } from "@errand/core";
import type { Errand } from "@errand/engine";
import type { ChaosCluster } from "./cluster-of-processes.js";
import { type Random, randomInt } from "./random.js";
import { settledWithin, unsettledNow } from "./settle.js";

/** The kinds of faults. */
export type FaultKind = "worker-kill" | "collector-kill";

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
}

function removeFrom<T>(list: T[], item: T): void {
  const index = list.indexOf(item);
  if (index >= 0) list.splice(index, 1);
}

/** Strikes one fault of `kind` now, replaces the process and resolves once recovery is measured. */
export async function strike(context: FaultContext, kind: FaultKind): Promise<FaultRecord> {
  const { cluster, errand } = context;
  const pool = kind === "worker-kill" ? cluster.workers : cluster.collectors;
  const victim = pool[randomInt(context.random, 0, pool.length - 1)];
  if (victim === undefined) throw new ErrandError("internal", `no process to strike for ${kind}`);
  removeFrom(pool, victim); // at once, so a fault striking meanwhile picks another process
  const inFlight = await unsettledNow(errand, context.firedRunIds());
  const struckAt = Date.now();
  await victim.signal("SIGKILL");
  const [settled] = await Promise.all([
    settledWithin(errand, inFlight, context.recoveryTimeoutMs),
    kind === "worker-kill" ? cluster.addWorker() : cluster.addCollector(),
  ]);
  return {
    kind,
    target: victim.name,
    atMs: struckAt - context.startedAt,
    inFlight: inFlight.length,
    ...(settled.size === inFlight.length ? { recoveryMs: Date.now() - struckAt } : {}),
  };
}
