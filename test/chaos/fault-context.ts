/**
 * What every fault module shares: the kinds of faults, what a fault needs
 * (its context), what striking one found, and the record of one fault with
 * its recovery. A leaf module: the fault modules and the report import it.
 */
import type { Errand } from "@errand/engine";
import type { Cluster, Redis } from "ioredis";
import type { ClientCalls } from "./client-calls.js";
import type { ChaosCluster } from "./cluster-of-processes.js";
import type { Random } from "./random.js";

/** The kinds of faults. */
export type FaultKind =
  | "worker-kill"
  | "collector-kill"
  | "zombie"
  | "redis-restart"
  | "redis-kill"
  | "redis-freeze"
  | "redis-slow"
  | "oom"
  | "maxclients"
  | "misconf"
  | "failover"
  | "rolling-deploy";

/** The kinds that strike Redis: they wait for each other (one server, or one cluster). */
export const REDIS_FAULT_KINDS: ReadonlySet<FaultKind> = new Set([
  "redis-restart",
  "redis-kill",
  "redis-freeze",
  "redis-slow",
  "oom",
  "maxclients",
  "misconf",
  "failover",
]);

/** What a rolling deploy did: each old worker sent SIGTERM once its replacement was starting. */
export interface DeployRecord {
  /** Old workers sent SIGTERM. */
  replaced: number;
  /** The longest an old worker took to exit after its SIGTERM, in ms. */
  longestExitMs: number;
  /** Old workers that did not exit cleanly (code 0) within the wait, with how they ended (must be none). */
  unclean: string[];
}

/** One fault asked for: where it struck, or that it found nothing to strike, and how the cluster recovered. */
export interface FaultRecord {
  kind: FaultKind;
  /** The process or server struck; for a fault that struck nothing, why. */
  target: string;
  /** Whether it struck a live target (a fault that found none is counted, and fails the run). */
  struck: boolean;
  /** ms since the workload started firing (when it struck, or gave up). */
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
  /** For a spell (Redis out of memory, frozen, slowed, out of clients, refusing writes): how long it lasted, in ms. */
  heldMs?: number;
  /** For a failover: ms from the master's SIGKILL until its replica was promoted and the cluster ok. */
  promotedAfterMs?: number;
  /** For `maxclients`: the connections Redis refused meanwhile (its `rejected_connections`). */
  connectionsRefused?: number;
  /** For `misconf`: whether Redis refused a write with `MISCONF` during the spell. */
  writesRefused?: boolean;
  /** For a rolling deploy: what it did. */
  deploy?: DeployRecord;
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
  /** How long a fault waits for the runs it struck to run again elsewhere, and a deploy for a worker to exit. */
  recoveryTimeoutMs: number;
  /**
   * Until when a fault struck so far waits for every run then in flight to
   * settle (epoch ms): `recoveryTimeoutMs` after the last fault struck, so it
   * moves later while faults keep striking the same runs.
   */
  recoveryDeadline(): number;
  /** How long a fault waits for a live target (a busy worker, a running collector) before it counts as not struck. */
  targetWaitMs: number;
  /** How long a zombie stays stopped at most, waiting for other workers to take its runs over. */
  takeOverTimeoutMs: number;
  /** A client of the harness's own, straight to Redis (never through the latency proxy), for its configuration. */
  admin: Redis | Cluster;
  /** Every client call the harness made that failed. */
  clientCalls: ClientCalls;
  /** How long each Redis spell lasts, by kind, in ms. */
  spellMs: { oom: number; freeze: number; slow: number; maxclients: number; misconf: number };
  /** The latency a slowed Redis adds to each chunk each way, in ms. */
  latencyMs: number;
  /** Told once a fault struck (or found nothing to strike), before its recovery is measured. */
  onStruck(): void;
  /** How many Redis faults the flags ask for: the n-th rolling deploy strikes during the n-th of them. */
  redisFaultsAsked: number;
}

/** What injecting a fault found. */
export interface Injected {
  target: string;
  heldMs?: number;
  held?: number;
  /** For a worker fault whose victim held runs: when (epoch ms) every one ran again elsewhere, if it did. */
  takenOverAt?: number;
  promotedAfterMs?: number;
  connectionsRefused?: number;
  writesRefused?: boolean;
  deploy?: DeployRecord;
}

/** Resolves after `ms`. */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
