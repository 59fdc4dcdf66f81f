/**
 * The fault: a worker host's cable pulled while it runs a multi-step run,
 * left out until every run it was running has been started by a worker on
 * another host (its job lock lapsed, a stalled-job check handed the job on),
 * then plugged back in. Its processes were never told: once back, their
 * queued appends reach Redis late, and the fence must refuse every one of
 * them (each logged by the cut worker as `append refused`).
 */
import { foldRun, isSettled } from "@errand/core";
import type { Errand } from "@errand/engine";
import { readLog } from "../audit.js";
import type { LogLine } from "../chaos-process.js";
import { startedElsewhere } from "../worker-holdings.js";
import type { HostNetwork } from "./host-network.js";
import type { HostWorker } from "./host-processes.js";

/** The line a worker logs when the fence refused one of its appends. */
const REFUSED_APPEND = "append refused: reading the log again";

/** What the cut did, and how the hosts recovered. */
export interface LinkCutRecord {
  /** The host whose cable was pulled, and its worker's id. */
  host: string;
  workerId: string;
  /** ms since the workload started firing. */
  atMs: number;
  /** The runs its worker was running when the cable was pulled. */
  held: string[];
  /** ms from the cut until every one of them was started on another host; undefined when some never were. */
  takenOverMs?: number;
  /** How long the cable was out, in ms. */
  cutMs: number;
  /** The cut worker's appends the fence refused once its cable was back. */
  staleWritesRefused: number;
  /** Runs among `held` for which the cut worker had no append refused (its late writes never came). */
  neverRefused: string[];
}

/** What the cut needs. */
export interface LinkCutContext {
  network: HostNetwork;
  errand: Errand;
  victim: HostWorker;
  /** When the workload started firing (epoch ms). */
  startedAt: number;
  /** Whether `runId` is a run long enough to be cut in the middle of (and the time has come to). */
  isLongRun(runId: string): boolean;
  /** The runIds of every run Redis holds. */
  runsInRedis(): Promise<string[]>;
  /** How long to wait for the take-over, and then for the late writes. */
  timeoutMs: number;
}

/** The runs among `runIds` whose open attempt is `workerId`'s: started by it, neither settled nor parked. */
async function runsRunningOn(
  errand: Errand,
  runIds: readonly string[],
  workerId: string,
): Promise<string[]> {
  const running: string[] = [];
  for (const runId of runIds) {
    const state = foldRun(await readLog(errand, runId), runId);
    if (!isSettled(state) && state.parked === undefined && state.workerId === workerId) {
      running.push(runId);
    }
  }
  return running;
}

/** Rejects after `ms` with `message`; the timer is cleared when `signal` aborts. */
function timeout(ms: number, message: string, signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    const timer = setTimeout(() => reject(new Error(message)), ms);
    signal.addEventListener("abort", () => clearTimeout(timer));
  });
}

/** How many long runs the victim may start before one is still running when its cable is pulled. */
const CUT_TRIES = 5;

/**
 * Pulls the victim's cable right after it starts a long run; resolves once
 * it is out while the victim runs something (the runs it holds, never
 * empty), or after {@link CUT_TRIES} tries (its cable back in, nothing held).
 */
async function cutWhileRunning(
  context: LinkCutContext,
): Promise<{ cutAt: number; held: string[] }> {
  const { network, errand, victim } = context;
  const tried = new Set<string>();
  for (let attempt = 1; ; attempt += 1) {
    const started = await victim.process.waitForMessage(
      "run started",
      context.timeoutMs,
      (line) =>
        typeof line.runId === "string" && context.isLongRun(line.runId) && !tried.has(line.runId),
    );
    tried.add(String(started.runId));
    network.cut(victim.host);
    const cutAt = Date.now();
    // From the logs, not from the worker's lines: an attempt whose `run-started` landed but whose answer the cut lost is held too.
    const held = await runsRunningOn(errand, await context.runsInRedis(), victim.workerId);
    if (held.length > 0 || attempt === CUT_TRIES) return { cutAt, held };
    // The harness read the line too late: the run had ended. Plug the cable back in and wait for the next.
    network.restore(victim.host);
  }
}

/** Pulls the victim's cable while it runs a long run, waits for the take-over, plugs it back in and waits for its late writes. */
export async function cutWorkerHost(context: LinkCutContext): Promise<LinkCutRecord> {
  const { network, errand, victim } = context;
  const { cutAt, held } = await cutWhileRunning(context);

  const waiting = new AbortController();
  let takenOverMs: number | undefined;
  try {
    await Promise.race([
      Promise.all(
        held.map((runId) => startedElsewhere(errand, runId, victim.workerId, waiting.signal)),
      ),
      timeout(context.timeoutMs, "the cut host's runs were not taken over", waiting.signal),
    ]);
    takenOverMs = Date.now() - cutAt;
  } catch (error) {
    process.stderr.write(`chaos:hosts: ${String(error)}\n`);
  } finally {
    waiting.abort();
    network.restore(victim.host);
  }
  const cutMs = Date.now() - cutAt;

  const refusedFor = (runId: string) => (line: LogLine) => line.runId === runId;
  const refusals = await Promise.allSettled(
    held.map((runId) =>
      victim.process.waitForMessage(REFUSED_APPEND, context.timeoutMs, refusedFor(runId)),
    ),
  );
  return {
    host: victim.host.name,
    workerId: victim.workerId,
    atMs: cutAt - context.startedAt,
    held,
    ...(takenOverMs === undefined ? {} : { takenOverMs }),
    cutMs,
    staleWritesRefused: victim.process.linesWith(REFUSED_APPEND).length,
    neverRefused: held.filter((_, i) => refusals[i]?.status === "rejected"),
  };
}
