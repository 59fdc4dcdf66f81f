/**
 * `errand bench`: throughput, latency and cost per run beside raw BullMQ and
 * raw Redis streams, on a fresh private Redis. The work is `@errand/bench`'s;
 * this command only prints it. `@errand/bench` is not a dependency of the
 * published CLI (only a devDependency, for the workspace) and is loaded only
 * here: an app that does not bench does not install it.
 */
import { type ParsedArgs, usageError } from "../args.js";
import { type CommandSpec, JSON_OPTION } from "../command.js";
import { DURABILITY_OPTION, durabilityOption } from "../durability.js";
import { EXIT, type ExitCode, systemErrorCode } from "../exit-codes.js";
import type { CliIO } from "../io.js";
import { writeJson } from "../output.js";
import { tracingWanted } from "../tracing/start-tracing.js";

/** A bench of its own (`--cluster`, `--scaling`, `--flow`): how it runs and how its report reads. */
interface OwnBench<R> {
  run(options: { quick: boolean; onProgress(line: string): void }): Promise<R>;
  format(report: R): string;
}

/** The flags `bench` takes besides `--quick` and `--json`. */
const BENCH_FLAGS = ["cluster", "scaling", "flow", "tracing", "budget", "no-metrics"] as const;

/** The most children `bench --fan-out` takes. */
const MAX_FAN_OUT = 10_000_000;

/** Runs `bench --fan-out N`, which takes `--cluster` and `--json` only, and prints its report. */
async function runFanOut(args: ParsedArgs, io: CliIO): Promise<ExitCode> {
  const children = args.integer("fan-out", { min: 1, max: MAX_FAN_OUT }, 0);
  const others = BENCH_FLAGS.filter((flag) => flag !== "cluster" && args.flag(flag));
  if (others.length > 0 || args.flag("quick") || args.string("durability") !== undefined) {
    throw usageError("bench: --fan-out takes --cluster and --json only");
  }
  const bench = await loadBench();
  const options = { children, onProgress: (line: string) => io.stderr.write(`${line}\n`) };
  if (args.flag("cluster")) {
    const report = await bench.runFanOutClusterBench(options);
    if (args.flag("json")) writeJson(io, report);
    else io.stdout.write(bench.formatFanOutClusterBench(report));
    return EXIT.ok;
  }
  const report = await bench.runFanOutBench(options);
  if (args.flag("json")) writeJson(io, report);
  else io.stdout.write(bench.formatFanOutBench(report));
  return EXIT.ok;
}

/** Runs `bench --<flag>`, which takes `--quick` and `--json` only, and prints its report. */
async function runOwnBench<R>(
  flag: (typeof BENCH_FLAGS)[number],
  args: ParsedArgs,
  io: CliIO,
  bench: OwnBench<R>,
): Promise<ExitCode> {
  const others = BENCH_FLAGS.filter((other) => other !== flag && args.flag(other));
  if (others.length > 0 || args.string("durability") !== undefined) {
    throw usageError(`bench: --${flag} takes --quick and --json only`);
  }
  const report = await bench.run({
    quick: args.flag("quick"),
    onProgress: (line) => io.stderr.write(`${line}\n`),
  });
  if (args.flag("json")) writeJson(io, report);
  else io.stdout.write(bench.format(report));
  return EXIT.ok;
}

/**
 * `@errand/bench`, or a usage error saying how to add it where it is not
 * installed beside the CLI.
 */
async function loadBench(): Promise<typeof import("@errand/bench")> {
  try {
    return await import("@errand/bench");
  } catch (error) {
    const notInstalled =
      systemErrorCode(error) === "ERR_MODULE_NOT_FOUND" &&
      (error as Error).message.includes("Cannot find package '@errand/bench'");
    if (!notInstalled) throw error;
    throw usageError(
      "bench: errand bench needs the package @errand/bench, which is not installed beside @errand/cli: pack it in errand's repository (`pnpm --filter @errand/bench pack`), `npm install` its tarball, then run errand bench again",
      error,
    );
  }
}

/** `bench`. */
export const benchCommand: CommandSpec = {
  usage:
    "errand bench [--quick] [--tracing] [--no-metrics] [--durability <acknowledged|replicated>] [--budget] [--json] | errand bench --cluster [--quick] [--json] | errand bench --scaling [--quick] [--json] | errand bench --flow [--quick] [--json] | errand bench --fan-out <N> [--cluster] [--json]",
  description: [
    "Measures, in one run on its own fresh redis-server (persistence off, flushed between",
    "phases; never the Redis of REDIS_URL): raw BullMQ no-op jobs and raw XREADGROUP+XACK",
    "as baselines, then errand end to end (fireMany → worker → collector → collect), its",
    "latency fire → result at 200 runs/s (persistence off, then appendonly yes with",
    "appendfsync everysec), a collector folding a backlog, and the CPU (node and Redis),",
    "Redis commands (by name), round trips, bytes and memory a run costs. Workers and",
    "collector run in this process. Progress goes to stderr. --quick takes under a",
    "minute. --json prints { machine, redis, baseline, errand, ratios }; see",
    "BENCHMARKS.md for each figure.",
    "--tracing installs the OpenTelemetry SDK (spans batched, exported to memory) for the",
    "run, to measure what traces cost; without it errand's spans are the API's no-ops.",
    "--no-metrics runs the workers without Prometheus metrics, to measure what they cost.",
    "--durability replicated starts a replica beside the server and makes every settling",
    "append wait for it (WAIT), to measure what replicated durability costs.",
    "--budget fires every run with a budget it never exhausts (each model request admitted",
    "and each response debited on Redis), to measure what budgets cost.",
    "--cluster starts a real 3-master Redis Cluster (redis-server and redis-cli on PATH),",
    "runs an even workload there with the worker's queue in 3 shards, then in 1 shard (what",
    "sharding the queue buys), then on one Redis, and prints each master's share of commands",
    "and Redis CPU (target with 3 shards: within ±20 % of a third), the queue shards it holds",
    "and each runs/s; --json prints { workload, cluster, clusterOneQueueShard, single,",
    "clusterVsSingle }.",
    "--scaling (slow: minutes, --quick one or two) runs the same workload with 1, 2 and 4",
    "worker processes (real child processes) on one fresh Redis, then on a 3-master cluster",
    "it starts, and prints runs/s and the cores each part kept busy; on a machine with few",
    "cores those show that the machine, not the worker count, is the limit. --json prints",
    "{ machine, workload, loadBefore, loadAfter, single, cluster }.",
    "--flow (minutes) measures what flow control costs a run (end-to-end runs without it, then",
    "with a concurrency key, a per-agent and a per-key limit on every run) and what fair",
    "queueing buys (a small tenant's first start behind a big tenant's backlog, first in first",
    "out, then fair), rounds alternating; --json prints { machine, sizes, loadBefore,",
    "loadAfter, overhead, fairness }.",
    "--fan-out N (slow: a millisecond or more a child on 2 cores) runs one parent agent",
    "that spawns N children in spawn_agents calls of 1,000, parks on collect_agents with",
    "wait: true, then pages through every child; the client, a worker (concurrency 50) and",
    "the collector run in this process. It prints the time, children/s, µs and CPU a child,",
    "Redis bytes a child (shard stream entries not yet trimmed apart) and by kind of key,",
    "each process's peak RSS, the parent's collect pages/s, and per phase (spawned,",
    "settled, collected) its CPU, Redis commands a child and slowest commands; it fails",
    "unless the parent collected every child. --json prints { machine, children, seconds,",
    "childrenPerSec, usPerChild, cpuUsPerChild, redisBytesPerChild, shardStreamBytesPerChild,",
    "redisBytesPerChildByKind, peakRssMb, collectPagesPerSec, parent, phases, … }.",
    "--fan-out N --cluster runs the same fan-out on a 3-master Redis Cluster it starts (48",
    "run shards, the worker's queue in 3 shards, one a master; Redis figures summed over",
    "the masters) and adds each master's share of the children (the runs and run logs it",
    "holds), of Redis memory, commands and CPU, and whether the masters' counts add up (N",
    "children, N + 1 run logs with the parent's); a line a minute on stderr tells how many",
    "children were fired and succeeded so far. --json adds { masters, shards, queueShards,",
    "perMaster, totals, countsAddUp }.",
  ].join("\n"),
  options: {
    quick: { type: "boolean", description: "smaller sizes: under a minute" },
    tracing: { type: "boolean", description: "record errand's spans with the OpenTelemetry SDK" },
    "no-metrics": { type: "boolean", description: "workers without Prometheus metrics" },
    budget: { type: "boolean", description: "fire every run with a budget (never exhausted)" },
    cluster: {
      type: "boolean",
      description:
        "spread over a 3-master Redis Cluster: each master's share, and runs/s beside one Redis (with --fan-out N: that fan-out there)",
    },
    scaling: {
      type: "boolean",
      description: "runs/s with 1, 2 and 4 worker processes, on one Redis and on a cluster (slow)",
    },
    flow: {
      type: "boolean",
      description: "what flow control costs a run and what fair queueing buys (minutes)",
    },
    "fan-out": {
      type: "string",
      value: "<N>",
      description: "one parent spawning and collecting N children: the cost of a child (slow)",
    },
    ...DURABILITY_OPTION,
    ...JSON_OPTION,
  },
  async run(args, io) {
    // The process's own SDK (an OTLP endpoint in the environment) would take the bench's place.
    if (args.flag("tracing") && tracingWanted(io.env)) {
      throw usageError(
        "bench: --tracing records spans in memory: unset the OTEL_EXPORTER_OTLP_* endpoint",
      );
    }
    if (args.string("fan-out") !== undefined) return runFanOut(args, io);
    if (args.flag("scaling")) {
      const { formatScalingBench, runScalingBench } = await loadBench();
      return runOwnBench("scaling", args, io, { run: runScalingBench, format: formatScalingBench });
    }
    if (args.flag("cluster")) {
      const { formatClusterBench, runClusterBench } = await loadBench();
      return runOwnBench("cluster", args, io, { run: runClusterBench, format: formatClusterBench });
    }
    if (args.flag("flow")) {
      const { formatFlowBench, runFlowBench } = await loadBench();
      return runOwnBench("flow", args, io, { run: runFlowBench, format: formatFlowBench });
    }
    const { formatBenchTable, runBench } = await loadBench();
    const result = await runBench({
      quick: args.flag("quick"),
      tracing: args.flag("tracing"),
      metrics: !args.flag("no-metrics"),
      budget: args.flag("budget"),
      ...durabilityOption(args, io),
      onProgress: (line) => io.stderr.write(`${line}\n`),
    });
    if (args.flag("json")) writeJson(io, result.report);
    else io.stdout.write(formatBenchTable(result));
    return EXIT.ok;
  },
};
