/**
 * The flags of `pnpm chaos`, each with what it means (`pnpm chaos --help`
 * prints them), and the faults they ask for.
 */
import { parseArgs } from "node:util";
import { ErrandError } from "@errand/core";
import { DEFAULT_LOCK_DURATION_MS, DEFAULT_STALLED_INTERVAL_MS } from "@errand/engine";
import type { FaultKind } from "./fault-context.js";

const CHAOS_OPTIONS = {
  runs: { type: "string", default: "60" },
  kills: { type: "string", default: "3" },
  "collector-kills": { type: "string", default: "1" },
  zombies: { type: "string", default: "0" },
  "redis-restarts": { type: "string", default: "0" },
  "redis-kills": { type: "string", default: "0" },
  "redis-freezes": { type: "string", default: "0" },
  "freeze-ms": { type: "string", default: "8000" },
  slowdowns: { type: "string", default: "0" },
  "slow-ms": { type: "string", default: "10000" },
  "latency-ms": { type: "string", default: "50" },
  oom: { type: "string", default: "0" },
  "oom-ms": { type: "string", default: "30000" },
  maxclients: { type: "string", default: "0" },
  "maxclients-ms": { type: "string", default: "10000" },
  misconf: { type: "string", default: "0" },
  "misconf-ms": { type: "string", default: "10000" },
  failovers: { type: "string", default: "0" },
  "rolling-deploys": { type: "string", default: "0" },
  "bad-input": { type: "boolean", default: false },
  cluster: { type: "boolean", default: false },
  "node-timeout-ms": { type: "string", default: "2000" },
  durability: { type: "string", default: "acknowledged" },
  isolated: { type: "boolean", default: false },
  workers: { type: "string", default: "3" },
  "interval-ms": { type: "string", default: "100" },
  "lock-ms": { type: "string", default: String(DEFAULT_LOCK_DURATION_MS) },
  "stalled-interval-ms": { type: "string", default: String(DEFAULT_STALLED_INTERVAL_MS) },
  "settle-ms": { type: "string", default: "120000" },
  "target-wait-ms": { type: "string", default: "600000" },
  seed: { type: "string" },
  json: { type: "string" },
  help: { type: "boolean", short: "h", default: false },
} as const;

type ChaosFlag = keyof typeof CHAOS_OPTIONS;

/** What each flag means, as `--help` prints it. */
const FLAG_MEANINGS: Record<ChaosFlag, string> = {
  runs: "runs the workload fires, one every --interval-ms; it goes on firing while faults are still to strike",
  kills: "workers SIGKILLed, each one holding runs, each replaced at once",
  "collector-kills": "collectors SIGKILLed, each one running, each replaced at once",
  zombies:
    "workers holding runs SIGSTOPped until others took their runs over, then SIGCONTed (each a different worker)",
  "redis-restarts": "Redis shut down with SIGTERM (AOF flushed) and started again on its AOF",
  "redis-kills":
    "Redis killed with SIGKILL (up to a second of acknowledged writes lost) and started again on its AOF",
  "redis-freezes": "Redis SIGSTOPped for --freeze-ms, then SIGCONTed",
  "freeze-ms": "how long Redis stays frozen",
  slowdowns:
    "Redis slowed: every client reaches it through a proxy that adds --latency-ms each way for --slow-ms",
  "slow-ms": "how long Redis stays slow",
  "latency-ms": "the latency a slowdown adds to each chunk of bytes, each way",
  oom: "Redis out of memory: maxmemory (noeviction) lowered to just above its use for --oom-ms",
  "oom-ms": "how long Redis stays out of memory",
  maxclients:
    "Redis out of connections: maxclients lowered to half its clients and every client dropped, for --maxclients-ms",
  "maxclients-ms": "how long maxclients stays lowered",
  misconf:
    "Redis unable to save (its dir removed, BGSAVE failed): every write refused with MISCONF for --misconf-ms",
  "misconf-ms": "how long Redis refuses writes",
  failovers:
    "with --cluster: a master SIGKILLed, its replica promoted, the master back as a replica",
  "rolling-deploys":
    "the workers replaced one by one (SIGTERM each old one as its replacement starts); the n-th deploy strikes during the n-th Redis fault when there is one",
  "bad-input": "malformed jobs, oversized inputs and poison shard entries thrown in once",
  cluster: "run on a Redis Cluster of 3 masters and 3 replicas instead of one redis-server",
  "node-timeout-ms": "the cluster's cluster-node-timeout",
  durability: "the appends' durability: acknowledged or replicated (WAIT for a replica)",
  isolated: "strike the faults one at a time, each after the last recovered",
  workers: "worker processes",
  "interval-ms": "the pause between two fires",
  "lock-ms": "the workers' job lock duration",
  "stalled-interval-ms": "how often the workers look for jobs whose lock lapsed",
  "settle-ms":
    "how long a fault's recovery may take after the last fault struck, and how long the final settle may take",
  "target-wait-ms":
    "how long a process fault waits for a live target before it counts as not struck",
  seed: "the seed of the random source (default: from the clock); the same seed repeats a run's choices",
  json: "also write the JSON summary to this file",
  help: "print the flags and exit",
};

/** What a flag's value is, where it is not a number. */
const VALUE_NAMES: Partial<Record<ChaosFlag, string>> = {
  durability: "acknowledged|replicated",
  json: "file",
};

/** The fault each counting flag asks for. */
const FAULT_FLAGS: readonly (readonly [ChaosFlag, FaultKind])[] = [
  ["kills", "worker-kill"],
  ["collector-kills", "collector-kill"],
  ["zombies", "zombie"],
  ["redis-restarts", "redis-restart"],
  ["redis-kills", "redis-kill"],
  ["redis-freezes", "redis-freeze"],
  ["slowdowns", "redis-slow"],
  ["oom", "oom"],
  ["maxclients", "maxclients"],
  ["misconf", "misconf"],
  ["failovers", "failover"],
  ["rolling-deploys", "rolling-deploy"],
];

/** The `--help` text: every flag, its default and its meaning. */
function helpText(): string {
  const rows = Object.entries(CHAOS_OPTIONS).map(([name, option]) => {
    const value = option.type === "string" ? ` <${VALUE_NAMES[name as ChaosFlag] ?? "n"}>` : "";
    const fallback =
      "default" in option && option.type === "string" ? ` (default ${option.default})` : "";
    return `  --${name}${value}\n      ${FLAG_MEANINGS[name as ChaosFlag]}${fallback}`;
  });
  return [
    "pnpm chaos [flags]: real processes and a real Redis, faults struck while runs go, then an audit of every run.",
    "Exits 1 when a must-be-zero figure is not zero (a fault not struck, a client call failed, a run lost, …).",
    "",
    ...rows,
    "",
  ].join("\n");
}

/** The parsed flags of `pnpm chaos`. */
export interface ChaosFlags {
  /** A number flag's value; throws `invalid_spec` when it is not a number. */
  number(name: ChaosFlag): number;
  /** A boolean flag's value. */
  on(name: "bad-input" | "cluster" | "isolated"): boolean;
  durability: "acknowledged" | "replicated";
  json: string | undefined;
  /** The faults asked for, kind by kind, in the order of the flags. */
  faultKinds: FaultKind[];
}

/** Parses `args`; prints the help and exits when asked for it. */
export function parseChaosFlags(args: readonly string[]): ChaosFlags {
  const { values } = parseArgs({ args: [...args], options: CHAOS_OPTIONS });
  if (values.help) {
    process.stdout.write(helpText());
    process.exit(0);
  }
  const seed = values.seed ?? String(Date.now() % 1_000_000);
  const number = (name: ChaosFlag) => {
    const value = name === "seed" ? seed : values[name];
    const parsed = Number(value);
    if (typeof value !== "string" || !Number.isFinite(parsed)) {
      throw new ErrandError("invalid_spec", `--${name} is a number, not ${String(value)}`);
    }
    return parsed;
  };
  const { durability } = values;
  if (durability !== "acknowledged" && durability !== "replicated") {
    throw new ErrandError(
      "invalid_spec",
      `--durability is acknowledged or replicated, not ${durability}`,
    );
  }
  return {
    number,
    on: (name) => values[name],
    durability,
    json: values.json,
    faultKinds: FAULT_FLAGS.flatMap(([flag, kind]) =>
      Array.from({ length: number(flag) }, () => kind),
    ),
  };
}
