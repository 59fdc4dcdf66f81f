/**
 * `pnpm chaos:hosts`: errand on real hosts made of Linux network namespaces.
 * Redis runs on one host, the built CLI's workers (`errand worker`) on
 * `--workers` others and its collector on another; the harness fires a
 * workload of multi-step runs (reaching Redis on its unix socket), pulls one
 * worker host's cable while it runs a run, keeps it out until that host's
 * runs run elsewhere, plugs it back in, waits for the late writes to be
 * refused, then audits every run. Prints a JSON summary and a table; exits 1
 * when a must-be-zero figure is not zero. Where the machine cannot make
 * network namespaces (not root, no `ip`), it says `skipped: …` and exits 0.
 */
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createErrand } from "@errand/engine";
import { uniqueKeyPrefix } from "@errand/testing";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { audit, runsInRedis } from "../audit.js";
import { chaosQueue } from "../bad-input.js";
import { ClientCalls } from "../client-calls.js";
import { randomInt, seededRandom } from "../random.js";
import { publishSummary } from "../report.js";
import { settledWithin } from "../settle.js";
import { type FiredRun, fireWorkload, type RunKind } from "../workload.js";
import { createHostNetwork, namespacesUnavailable } from "./host-network.js";
import { startCollectorOn, startRedisOn, startWorkerOn } from "./host-processes.js";
import { cutWorkerHost } from "./link-cut.js";
import { formatHostsTable, type HostsSummary, hostsPass } from "./report.js";

/**
 * The runs fired: stepped (multi-step) runs, twice as likely as each other
 * kind; parents, whose children may run on any host; structured and failing runs.
 */
const HOSTS_RUN_KINDS: readonly RunKind[] = [
  "stepped",
  "stepped",
  "parent",
  "structured",
  "failing",
];

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "40" },
    workers: { type: "string", default: "3" },
    "interval-ms": { type: "string", default: "100" },
    "settle-ms": { type: "string", default: "120000" },
    seed: { type: "string", default: String(Date.now() % 1_000_000) },
    json: { type: "string" },
  },
});
const seed = Number(values.seed);
const random = seededRandom(seed);
const settleMs = Number(values["settle-ms"]);
const workerCount = Math.max(2, Number(values.workers));
const runs = Number(values.runs);

const tag = `errand-${randomBytes(3).toString("hex")}`;
const unavailable = namespacesUnavailable(tag);
if (unavailable !== undefined) {
  process.stdout.write(`chaos:hosts skipped: ${unavailable}\n`);
  process.exit(0);
}

const startedAt = Date.now();
const clientCalls = new ClientCalls(startedAt);
const workerNames = Array.from({ length: workerCount }, (_, i) => `worker-${i + 1}`);
const dir = await mkdtemp(join(tmpdir(), "errand-hosts-"));
const network = createHostNetwork(tag, ["redis", ...workerNames, "collector"]);
// However the harness ends, the namespaces (and whatever still runs in them) and Redis's files go with it.
const cleanUp = () => {
  network.destroy();
  rmSync(dir, { recursive: true, force: true });
};
process.once("exit", cleanUp);
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.once(signal, () => process.exit(1));
}
try {
  const redis = await startRedisOn(network, network.host("redis"), dir);
  const prefix = uniqueKeyPrefix("hosts");
  const [workers, collector] = await Promise.all([
    Promise.all(
      workerNames.map((name) => startWorkerOn(network, network.host(name), redis.url, prefix)),
    ),
    startCollectorOn(network, network.host("collector"), redis.url, prefix),
  ]);
  const upMs = Date.now() - startedAt;
  const errand = createErrand({ connection: { path: redis.socket }, prefix });
  const admin = new Redis({ path: redis.socket });
  try {
    const fired: FiredRun[] = [];
    const workloadStartedAt = Date.now();
    const workload = fireWorkload(errand, random, runs, Number(values["interval-ms"]), fired, {
      kinds: HOSTS_RUN_KINDS,
    });
    const victim = workers[randomInt(random, 0, workers.length - 1)]!;
    const cut = await cutWorkerHost({
      network,
      errand,
      victim,
      startedAt: workloadStartedAt,
      // Once half the runs are fired, so the cut host holds a few at once.
      isLongRun: (runId) =>
        fired.length >= runs / 2 &&
        fired.some((run) => run.runId === runId && run.kind === "stepped"),
      runsInRedis: () => runsInRedis(admin, prefix),
      timeoutMs: settleMs,
    });
    await workload;
    await settledWithin(
      errand,
      fired.map((run) => run.runId),
      settleMs,
      clientCalls,
    );
    const queue = new Queue(chaosQueue(prefix), {
      connection: { path: redis.socket },
      prefix: errand.keys.bullmqPrefix,
    });
    const findings = await audit(errand, admin, prefix, fired, async (runId) => {
      return (await queue.getJobState(runId)) !== "unknown";
    }).finally(() => queue.close());
    const processes = [redis.process, ...workers.map((worker) => worker.process), collector];
    const crashed = processes.filter((child) => !child.alive()).map((child) => child.name);
    const summary: HostsSummary = {
      seed,
      durationMs: Date.now() - startedAt,
      upMs,
      hosts: [
        { name: "redis", address: network.host("redis").address, runs: "redis-server" },
        ...workers.map((worker) => ({
          name: worker.host.name,
          address: worker.host.address,
          runs: `errand worker ${worker.workerId}`,
        })),
        { name: "collector", address: network.host("collector").address, runs: "errand collector" },
      ],
      findings,
      cut,
      crashed,
      clientFailures: clientCalls.failures,
      passed: hostsPass(findings, cut, crashed) && clientCalls.failures.length === 0,
    };
    await publishSummary(summary, formatHostsTable(summary), values.json);
  } finally {
    admin.disconnect();
    await errand.close();
  }
} finally {
  cleanUp();
}
