/**
 * What a worker is told about flow control (docs/architecture/flow-control.md#flow-control), and the limits that apply to one run. Every worker of a fleet
 * must be given the same limits: each enforces what it was told.
 */
import { ErrandError } from "@errand/core";
import { z } from "zod";

/** A limit on the runs of the concurrency keys matching `key`. */
interface KeyConcurrencyLimit {
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

const Limit = z.number().int().min(1);
const PerMinute = z.number().positive();
const Milliseconds = z.number().int().min(1);

/** {@link FlowControlOptions} as data (JSON, e.g. `errand worker --flow-control`): anything else is refused. */
const FlowControlSpec: z.ZodType<FlowControlOptions> = z.strictObject({
  agentConcurrency: z.record(z.string().min(1), Limit).optional(),
  keyConcurrency: z.array(z.strictObject({ key: z.string().min(1), limit: Limit })).optional(),
  providerLimits: z
    .record(
      z.string().min(1),
      z.strictObject({
        requestsPerMinute: PerMinute.optional(),
        tokensPerMinute: PerMinute.optional(),
      }),
    )
    .optional(),
  leaseMs: Milliseconds.optional(),
  recheckMs: Milliseconds.optional(),
});

/**
 * `value` checked as {@link FlowControlOptions}: limits whole numbers ≥ 1,
 * rates a minute above 0, times whole milliseconds ≥ 1, no other field.
 * Throws `invalid_spec` naming each problem by its path, after `what`
 * (`flowControl: agentConcurrency.researcher: …`).
 */
export function parseFlowControl(value: unknown, what = "flowControl"): FlowControlOptions {
  const parsed = FlowControlSpec.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) =>
    issue.path.length === 0 ? issue.message : `${issue.path.join(".")}: ${issue.message}`,
  );
  throw new ErrandError("invalid_spec", `${what}: ${issues.join("; ")}`, {
    details: { issues },
  });
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
