/**
 * The chaos harness:
 * `pnpm chaos --runs 60 --kills 3 --collector-kills 1 --zombies 1 --redis-restarts 1 --oom 1 --seed 7`,
 * or on a Redis Cluster of 3 masters and 3 replicas whose masters are
 * SIGKILLed and failed over: `pnpm chaos --cluster --failovers 2 --kills 0 --collector-kills 0`.
 * Starts a real Redis (or the cluster), worker and collector processes, fires a steady
 * workload, strikes the faults at random moments while it runs (or, with
 * `--isolated`, one at a time), the workload going on until the last fault
 * struck; waits for every run to settle, audits every run and prints a
 * JSON summary and a table. Exits 1 when a must-be-zero figure is not zero.
 * `pnpm chaos --help` lists every flag (`flags.ts`).
 */
import { createErrand, DEFAULT_MAX_STALLED_COUNT } from "@errand/engine";
import { openRedisUrl } from "@errand/engine/ops";
import { Queue } from "bullmq";
import { lostAcknowledgedAppends } from "./acknowledged.js";
import { audit } from "./audit.js";
import {
  chaosQueue,
  countDeadLetters,
  countPendingEntries,
  countQueueJobs,
  throwBadInput,
} from "./bad-input.js";
import type { ChaosProcess } from "./chaos-process.js";
import { ClientCalls } from "./client-calls.js";
import { startCluster } from "./cluster-of-processes.js";
import {
  type FaultContext,
  type FaultKind,
  type FaultRecord,
  REDIS_FAULT_KINDS,
} from "./fault-context.js";
import { strike } from "./faults.js";
import { parseChaosFlags } from "./flags.js";
import { strikeOneAtATime } from "./isolated-faults.js";
import { seededRandom } from "./random.js";
import {
  type ChaosSummary,
  faultCounts,
  formatTable,
  passes,
  publishSummary,
  recoveryByKind,
} from "./report.js";
import { settledWithin, unsettledNow } from "./settle.js";
import { type FiredRun, fireWorkload } from "./workload.js";

const flags = parseChaosFlags(process.argv.slice(2));
const seed = flags.number("seed");
const random = seededRandom(seed);
const runs = flags.number("runs");
const intervalMs = flags.number("interval-ms");
const settleMs = flags.number("settle-ms");
const lockMs = flags.number("lock-ms");
const stalledIntervalMs = flags.number("stalled-interval-ms");
const isolated = flags.on("isolated");
const workers = flags.number("workers");

/** Past `--runs`, while faults are still to strike: the runs in flight the workload keeps, per worker. */
const GO_ON_IN_FLIGHT_PER_WORKER = 2;

/** How often, past `--runs`, the workload looks whether it has room for another run, in ms. */
const GO_ON_CHECK_MS = 250;
const { faultKinds, durability } = flags;

/**
 * How many stalls a run's job may take before BullMQ gives it up. Every kill
 * and zombie aims at a busy worker, and a Redis fault can lapse every lock at
 * once, so one run can be struck by each fault asked: allow one stall per
 * fault on top of the engine's default (its room for locks lapsed under load),
 * so that no run ends `worker_lost` only because the harness struck it often.
 */
const maxStalledCount = DEFAULT_MAX_STALLED_COUNT + faultKinds.length;

const startedAt = Date.now();
const cluster = await startCluster({
  workers,
  collectors: 1,
  lockDurationMs: lockMs,
  stalledIntervalMs,
  maxStalledCount,
  durability,
  latencyProxy: faultKinds.includes("redis-slow"),
  ...(flags.on("cluster")
    ? { redisCluster: { nodeTimeoutMs: flags.number("node-timeout-ms") } }
    : {}),
});
const clientCalls = new ClientCalls(startedAt);
const errand = createErrand({ connection: cluster.redis.url, prefix: cluster.prefix });
const redis = openRedisUrl(cluster.redis.adminUrl);
// While Redis restarts the client reconnects by itself; its connection errors are expected.
redis.on("error", () => undefined);
const fired: FiredRun[] = [];
try {
  const workloadStartedAt = Date.now();
  let faultsOver = false;
  let struck = 0;
  let lastStruckAt = Date.now();
  // Faults take as long as they take (a kill waits for a busy worker): the
  // workload goes on until the last struck, a few runs in flight at a time,
  // enough to keep workers busy without piling up a backlog.
  const settledSoFar = new Set<string>();
  const roomToGoOn = async () => {
    while (!faultsOver && struck < faultKinds.length) {
      const ids = fired.map((run) => run.runId);
      const inFlight = await unsettledNow(errand, ids, clientCalls, settledSoFar);
      if (inFlight.length < GO_ON_IN_FLIGHT_PER_WORKER * workers) return true;
      await new Promise((resolve) => setTimeout(resolve, GO_ON_CHECK_MS));
    }
    return false;
  };
  const workload = fireWorkload(errand, random, runs, intervalMs, fired, { goOn: roomToGoOn });
  // Each fault strikes at a random moment within the workload's firing time.
  const firingMs = runs * intervalMs;
  const strikeTimes = faultKinds.map(() => Math.floor(random() * firingMs)).sort((a, b) => a - b);
  const faults: FaultRecord[] = [];
  const faultErrors: string[] = [];
  const recorded = (record: FaultRecord) => void faults.push(record);
  const failed = (kind: FaultKind, error: unknown) =>
    void faultErrors.push(`${kind}: ${String(error)}`);
  const context: FaultContext = {
    cluster,
    errand,
    random,
    startedAt: workloadStartedAt,
    firedRunIds: () => fired.map((run) => run.runId),
    recoveryTimeoutMs: settleMs,
    recoveryDeadline: () => lastStruckAt + settleMs,
    targetWaitMs: flags.number("target-wait-ms"),
    // Twice the longest a lapse and a check can take, and room for a loaded machine.
    takeOverTimeoutMs: 2 * (lockMs + stalledIntervalMs) + 10_000,
    admin: redis,
    clientCalls,
    spellMs: {
      oom: flags.number("oom-ms"),
      freeze: flags.number("freeze-ms"),
      slow: flags.number("slow-ms"),
      maxclients: flags.number("maxclients-ms"),
      misconf: flags.number("misconf-ms"),
    },
    latencyMs: flags.number("latency-ms"),
    onStruck: () => {
      struck += 1;
      lastStruckAt = Date.now();
    },
    redisFaultsAsked: faultKinds.filter((kind) => REDIS_FAULT_KINDS.has(kind)).length,
  };
  const strikeAtRandomMoments = async () => {
    const pending: Promise<void>[] = [];
    for (const [i, kind] of faultKinds.entries()) {
      const waitMs = (strikeTimes[i] ?? 0) - (Date.now() - workloadStartedAt);
      if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
      pending.push(strike(context, kind).then(recorded, (error: unknown) => failed(kind, error)));
    }
    await Promise.all(pending);
  };
  const faulting = (
    isolated ? strikeOneAtATime(context, faultKinds, recorded, failed) : strikeAtRandomMoments()
  ).finally(() => {
    faultsOver = true;
  });
  // Bad input lands at a random moment within the firing time too.
  const badInput = flags.on("bad-input")
    ? new Promise((resolve) => setTimeout(resolve, Math.floor(random() * firingMs))).then(() =>
        throwBadInput(errand, redis, cluster.prefix),
      )
    : Promise.resolve(undefined);
  const [refusedFires, , thrown] = await Promise.all([workload, faulting, badInput]);
  await settledWithin(
    errand,
    fired.map((run) => run.runId),
    settleMs,
    clientCalls,
  );
  if (thrown !== undefined) {
    // Poison entries are dead-lettered after their last delivery: wait for a collector to say so.
    await Promise.any(
      cluster.collectors.map((collector) =>
        collector.waitForMessage("shard entry dead-lettered", settleMs),
      ),
    ).catch(() => undefined);
  }
  const queue = new Queue(chaosQueue(cluster.prefix), {
    connection: redis,
    prefix: errand.keys.bullmqPrefix,
  });
  const findings = await audit(errand, redis, cluster.prefix, fired, async (runId) => {
    return (await queue.getJobState(runId)) !== "unknown";
  }).finally(() => queue.close());
  const crashed = [...cluster.workers, ...cluster.collectors]
    .filter((process) => !process.alive())
    .map((process) => process.name);
  /** How many lines with `msg` `processes` logged, together. */
  const logged = (processes: readonly ChaosProcess[], ...msgs: string[]) =>
    processes.reduce(
      (sum, process) => sum + msgs.reduce((count, msg) => count + process.linesWith(msg).length, 0),
      0,
    );
  const staleWritesRefused = logged(
    cluster.allWorkers,
    "append refused: reading the log again",
    "another attempt owns the run: this one stops writing",
  );
  const outOfMemory = {
    writesWaited: logged(
      [...cluster.allWorkers, ...cluster.allCollectors],
      "Redis is out of memory: retrying the write until it has room",
    ),
    locksKept: logged(cluster.allWorkers, "Redis is out of memory: job locks kept by their expiry"),
  };
  const summary: ChaosSummary = {
    seed,
    durability,
    durationMs: Date.now() - startedAt,
    findings,
    faults: faults.sort((a, b) => a.atMs - b.atMs),
    isolated,
    recoveryByKind: recoveryByKind(faults),
    staleWritesRefused,
    refusedFires,
    outOfMemory,
    acknowledged: await lostAcknowledgedAppends(errand, cluster.allWorkers),
    deadLettered: await countDeadLetters(redis, cluster.prefix),
    pendingEntries: await countPendingEntries(redis, cluster.prefix),
    queueJobs: await countQueueJobs(redis, cluster.prefix),
    crashed,
    faultErrors,
    clientFailures: clientCalls.failures,
    ...(thrown === undefined ? {} : { badInput: thrown }),
    passed:
      passes(findings) &&
      Object.values(faultCounts(faults)).every((count) => count === 0) &&
      crashed.length === 0 &&
      faultErrors.length === 0 &&
      clientCalls.failures.length === 0 &&
      (thrown === undefined || thrown.oversizedRefused === thrown.oversizedFired),
  };
  await publishSummary(summary, formatTable(summary), flags.json);
} finally {
  redis.disconnect();
  await errand.close();
  await cluster.stop();
}
