/**
 * A rolling deploy of the workers (`--rolling-deploys`): worker by worker,
 * a new worker is started and the old one sent SIGTERM, and the next waits
 * until the old one exited. A SIGTERMed worker closes (its runs finish or are
 * handed on) and must exit cleanly (code 0) within the recovery wait. With
 * Redis faults asked for too, the n-th deploy strikes as the n-th Redis
 * fault begins (during an out-of-memory spell, a failover, …).
 */
import { once } from "node:events";
import type { ChaosProcess } from "./chaos-process.js";
import { type DeployRecord, type FaultContext, type Injected, sleep } from "./fault-context.js";
import { removeFrom, replace } from "./live-targets.js";
import { redisFaultBegun } from "./redis-faults.js";

/** How long after its Redis fault began a deploy strikes, in ms: the fault is on by then. */
const AFTER_REDIS_FAULT_MS = 500;

/** How many deploys were aimed so far: the n-th waits for the n-th Redis fault. */
let aimed = 0;

/** Waits, when Redis faults are asked for, until this deploy's Redis fault began. */
export async function aimDeploy(context: FaultContext): Promise<void> {
  const index = aimed;
  aimed += 1;
  if (index >= context.redisFaultsAsked) return;
  await redisFaultBegun(index);
  await sleep(AFTER_REDIS_FAULT_MS);
}

/**
 * How `worker` ended within `timeoutMs` of its SIGTERM: undefined when
 * cleanly (code 0), else why not. The timeout's timer is cleared once the
 * worker exits: left running, it kept the harness alive for the whole
 * `--settle-ms` after its report.
 */
async function terminate(worker: ChaosProcess, timeoutMs: number): Promise<string | undefined> {
  const exited = once(worker.child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
  worker.child.kill("SIGTERM");
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(resolve, timeoutMs, undefined);
  });
  const ended = await Promise.race([exited, timeout]).finally(() => clearTimeout(timer));
  if (ended === undefined) {
    worker.child.kill("SIGKILL");
    return `${worker.name}: still running ${timeoutMs} ms after SIGTERM`;
  }
  const [code, signal] = ended;
  return code === 0 ? undefined : `${worker.name}: exited with ${signal ?? `code ${code}`}`;
}

/** Replaces every worker of the pool, one at a time. */
export async function deployWorkers(context: FaultContext): Promise<Injected> {
  const { cluster } = context;
  const deploy: DeployRecord = { replaced: 0, longestExitMs: 0, unclean: [] };
  for (const old of [...cluster.workers]) {
    if (!cluster.workers.includes(old) || !old.alive()) continue; // struck meanwhile
    removeFrom(cluster.workers, old);
    replace(cluster.addWorker());
    const termAt = Date.now();
    const unclean = await terminate(old, context.recoveryTimeoutMs);
    deploy.replaced += 1;
    deploy.longestExitMs = Math.max(deploy.longestExitMs, Date.now() - termAt);
    if (unclean !== undefined) deploy.unclean.push(unclean);
  }
  return { target: `${deploy.replaced} workers`, deploy };
}
