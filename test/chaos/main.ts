/**
 * The chaos harness:
 * `pnpm chaos --runs 60 --kills 3 --collector-kills 1 --zombies 1 --redis-restarts 1 --oom 1 --seed 7`,
 * or on a Redis Cluster of 3 masters and 3 replicas whose masters are
 * SIGKILLed and failed over: `pnpm chaos --cluster --failovers 2 --kills 0 --collector-kills 0`.
 * Starts a real Redis (or the cluster), worker and collector processes, fires a steady
 * workload, strikes the faults at random moments while it runs (or, with
 * `--isolated`, one at a time, the workload going on until the last
 * recovered), waits for every run to settle, audits every run and prints a
 * JSON summary and a table. Exits 1 when a must-be-zero figure is not zero.
 */
import { parseArgs } from "node:util";
import { ErrandError } from "@errand/core";
import {
  createErrand,
  DEFAULT_LOCK_DURATION_MS,
  DEFAULT_STALLED_INTERVAL_MS,
} from "@errand/engine";
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
import { startCluster } from "./cluster-of-processes.js";
import { type FaultKind, type FaultRecord, strike } from "./faults.js";
import { strikeOneAtATime } from "./isolated-faults.js";
import { seededRandom } from "./random.js";
import {
  type ChaosSummary,
  formatTable,
  passes,
  publishSummary,
  recoveryByKind,
} from "./report.js";
import { settledWithin } from "./settle.js";
import { type FiredRun, fireWorkload } from "./workload.js";

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "60" },
    kills: { type: "string", default: "3" },
    "collector-kills": { type: "string", default: "1" },
    zombies: { type: "string", default: "0" },
    "redis-restarts": { type: "string", default: "0" },
    oom: { type: "string", default: "0" },
    "oom-ms": { type: "string", default: "30000" },
    "bad-input": { type: "boolean", default: false },
    "redis-sigkill": { type: "boolean", default: false },
    cluster: { type: "boolean", default: false },
    failovers: { type: "string", default: "0" },
    "node-timeout-ms": { type: "string", default: "2000" },
    durability: { type: "string", default: "acknowledged" },
    isolated: { type: "boolean", default: false },
    workers: { type: "string", default: "3" },
    "interval-ms": { type: "string", default: "100" },
    "lock-ms": { type: "string", default: String(DEFAULT_LOCK_DURATION_MS) },
    "stalled-interval-ms": { type: "string", default: String(DEFAULT_STALLED_INTERVAL_MS) },
    "settle-ms": { type: "string", default: "120000" },
    seed: { type: "string", default: String(Date.now() % 1_000_000) },
    json: { type: "string" },
  },
});
const numberFlag = (
  name: Exclude<
    keyof typeof values,
    "bad-input" | "redis-sigkill" | "isolated" | "cluster" | "durability"
  >,
) => Number(values[name]);

const seed = numberFlag("seed");
const random = seededRandom(seed);
const runs = numberFlag("runs");
const intervalMs = numberFlag("interval-ms");
const settleMs = numberFlag("settle-ms");
const lockMs = numberFlag("lock-ms");
const stalledIntervalMs = numberFlag("stalled-interval-ms");
const isolated = values.isolated;
const faultKinds: FaultKind[] = [
  ...Array.from({ length: numberFlag("kills") }, (): FaultKind => "worker-kill"),
  ...Array.from({ length: numberFlag("collector-kills") }, (): FaultKind => "collector-kill"),
  ...Array.from({ length: numberFlag("zombies") }, (): FaultKind => "zombie"),
  ...Array.from({ length: numberFlag("redis-restarts") }, (): FaultKind => "redis-restart"),
  ...Array.from({ length: numberFlag("oom") }, (): FaultKind => "oom"),
  ...Array.from({ length: numberFlag("failovers") }, (): FaultKind => "failover"),
];

const durability = values.durability;
if (durability !== "acknowledged" && durability !== "replicated") {
  throw new ErrandError(
    "invalid_spec",
    `--durability is acknowledged or replicated, not ${durability}`,
  );
}

const startedAt = Date.now();
const cluster = await startCluster({
  workers: numberFlag("workers"),
  collectors: 1,
  lockDurationMs: lockMs,
  stalledIntervalMs,
  durability,
  ...(values.cluster ? { redisCluster: { nodeTimeoutMs: numberFlag("node-timeout-ms") } } : {}),
});
const errand = createErrand({ connection: cluster.redis.url, prefix: cluster.prefix });
const redis = openRedisUrl(cluster.redis.url);
// While Redis restarts the client reconnects by itself; its connection errors are expected.
redis.on("error", () => undefined);
const fired: FiredRun[] = [];
try {
  const workloadStartedAt = Date.now();
  let faultsOver = false;
  // Isolated faults take as long as they take: the workload goes on until the last recovered.
  const workload = fireWorkload(errand, random, runs, intervalMs, fired, {
    goOn: () => isolated && !faultsOver,
  });
  // Each fault strikes at a random moment within the workload's firing time.
  const firingMs = runs * intervalMs;
  const strikeTimes = faultKinds.map(() => Math.floor(random() * firingMs)).sort((a, b) => a - b);
  const faults: FaultRecord[] = [];
  const faultErrors: string[] = [];
  const recorded = (record: FaultRecord) => void faults.push(record);
  const failed = (kind: FaultKind, error: unknown) =>
    void faultErrors.push(`${kind}: ${String(error)}`);
  const context = {
    cluster,
    errand,
    random,
    startedAt: workloadStartedAt,
    firedRunIds: () => fired.map((run) => run.runId),
    recoveryTimeoutMs: settleMs,
    // Twice the longest a lapse and a check can take, and room for a loaded machine.
    takeOverTimeoutMs: 2 * (lockMs + stalledIntervalMs) + 10_000,
    redisSignal: values["redis-sigkill"] ? ("SIGKILL" as const) : ("SIGTERM" as const),
    admin: redis,
    oomMs: numberFlag("oom-ms"),
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
  const badInput = values["bad-input"]
    ? new Promise((resolve) => setTimeout(resolve, Math.floor(random() * firingMs))).then(() =>
        throwBadInput(errand, redis, cluster.prefix),
      )
    : Promise.resolve(undefined);
  const [refusedFires, , thrown] = await Promise.all([workload, faulting, badInput]);
  await settledWithin(
    errand,
    fired.map((run) => run.runId),
    settleMs,
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
    ...(thrown === undefined ? {} : { badInput: thrown }),
    passed:
      passes(findings, faults) &&
      crashed.length === 0 &&
      faultErrors.length === 0 &&
      (thrown === undefined || thrown.oversizedRefused === thrown.oversizedFired),
  };
  await publishSummary(summary, formatTable(summary), values.json);
} finally {
  redis.disconnect();
  await errand.close();
  await cluster.stop();
}
