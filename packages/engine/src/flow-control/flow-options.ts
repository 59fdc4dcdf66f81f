/**
 * What a worker is told about flow control (docs/architecture.md §7, Flow
 * control), and the limits that apply to one run. Every worker of a fleet
 * must be given the same limits: each enforces what it was told.
 */
import { ErrandError } from "@errand/core";

/** A limit on the runs of the concurrency keys matching `key`. */
export interface KeyConcurrencyLimit {
  /** A key, or a pattern where `*` stands for any characters (`tenant-*`, `*`). */
  key: string;
  /** How many runs of one matching key may run at once across the fleet (each key its own). */
  limit: number;
}

/** A provider key's shared rate limits; either may be left out. */
export interface ProviderRateLimit {
  /** Model requests a minute. */
  requestsPerMinute?: number;
  /** Model tokens (input and output, as the provider counts them) a minute. */
  tokensPerMinute?: number;
}

/** The `flowControl` option of `createWorker`. */
export interface FlowControlOptions {
  /** How many runs of an agent may run at once across the fleet, by agent name. */
  agentConcurrency?: Readonly<Record<string, number>>;
  /** Per-key limits of `concurrencyKey`s: the first entry that matches a run's key applies. */
  keyConcurrency?: readonly KeyConcurrencyLimit[];
  /** Rate limits by provider key (`Model.providerKey`); `"*"` applies to every provider key. */
  providerLimits?: Readonly<Record<string, ProviderRateLimit>>;
  /** How long a run's lease lasts without renewal (it is renewed every third of it), ms. Default 15,000. */
  leaseMs?: number;
  /** How long a run refused a slot waits in the queue before it is tried again, ms (±50%). Default 1,000. */
  recheckMs?: number;
}

/** How long a lease lasts unless told: a crashed worker's slots come back within it. */
export const DEFAULT_LEASE_MS = 15_000;

/** How long a refused run waits before it is tried again, unless told (jittered by ±50%). */
export const DEFAULT_FLOW_RECHECK_MS = 1_000;

/** One lease a run must hold to start: a lease set's key and its limit. */
export interface LeaseSlot {
  key: string;
  limit: number;
}

function assertLimit(limit: number, what: string): void {
  if (!Number.isInteger(limit) || limit < 1) {
    throw new ErrandError(
      "invalid_spec",
      `flowControl: the limit of ${what} must be a whole number ≥ 1, got ${limit}`,
    );
  }
}

function patternMatcher(pattern: string): RegExp {
  const escaped = pattern.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${escaped.join(".*")}$`, "s");
}

/** The limits of a worker's flow control, resolved once. */
export interface ConcurrencyLimits {
  /** The limit of `agent`'s runs, if it has one. */
  ofAgent(agent: string): number | undefined;
  /** The limit of `key`'s runs, if one matches. */
  ofKey(key: string): number | undefined;
}

/**
 * The concurrency limits of `options`, checked. Throws `invalid_spec` for a
 * limit that is not a whole number ≥ 1.
 */
export function resolveConcurrencyLimits(options: FlowControlOptions = {}): ConcurrencyLimits {
  const agents = new Map(Object.entries(options.agentConcurrency ?? {}));
  for (const [agent, limit] of agents) assertLimit(limit, `agent ${agent}`);
  const keys = (options.keyConcurrency ?? []).map(({ key, limit }) => {
    assertLimit(limit, `key ${key}`);
    return { matches: patternMatcher(key), limit };
  });
  return {
    ofAgent: (agent) => agents.get(agent),
    ofKey: (key) => keys.find(({ matches }) => matches.test(key))?.limit,
  };
}
