/**
 * `rerun`: fire runs again, in bulk, after a fix (docs/architecture/firing.md#re-runs).
 * Each source run gives a new root run with the same agent, input, output
 * schema, metadata (plus `rerunOf`, the source's id), priority, concurrency
 * key, model settings, own budget and time allowance, on the version that ran (default), the
 * newest, or one named; `overrides` replace any of input, metadata,
 * priority, deadline and budget. A run is answered for itself (partial
 * success): a source that is unknown, never started with a recorded version,
 * or whose version has no live worker fails alone. At most
 * {@link MAX_RERUN} runs a call; a filter pages through the runs it matches
 * with `nextCursor`. Each new run is fired under an idempotency key of the
 * request and its source run, so a call made again (a retry after a lost
 * answer) fires nothing twice and answers with the runs fired before.
 */
import { createHash } from "node:crypto";
import {
  type BatchCounts,
  type BatchOutcome,
  ErrandError,
  type Page,
  type RunEvent,
  type RunEventOf,
} from "@errand/core";
import { batch, runNotFound } from "@errand/core/ops";
import { RunModelSettings } from "@errand/runtime";
import type { EngineKeys } from "../engine-keys.js";
import { versionStandings } from "../queues/agent-versions.js";
import { readAgentRegistrations } from "../queues/registry.js";
import type { ListOptions, RunSummary } from "../reads/list.js";
import type { RedisConnection } from "../redis/connection.js";
import type { FireManyItem, FireManyResult } from "./fire-many.js";
import type { FireSpec } from "./fire-spec.js";

/** The most runs one `rerun` call fires again. */
export const MAX_RERUN = 100;

/** The metadata key a re-run carries: the runId it re-runs. */
export const RERUN_OF_KEY = "rerunOf";

/** Which version of its agent a re-run runs on. */
export type RerunVersion = "original" | "newest" | (string & {});

/** What a re-run may change of its source run's spec. */
export interface RerunOverrides {
  input?: unknown;
  /** Merged over the source's metadata (`rerunOf` is always the source's id). */
  metadata?: Record<string, string>;
  priority?: number;
  deadlineMs?: number;
  budget?: FireSpec["budget"];
}

/** What `rerun` fires again: `runs` by id, or the runs `filter` matches, a page at a time. */
export interface RerunOptions {
  /** The source runs, by id: at most {@link MAX_RERUN}. */
  runs?: readonly string[];
  /** The runs to fire again, as `list` filters them (`status: "failed"`, `agent`, …). */
  filter?: Omit<ListOptions, "cursor" | "limit">;
  /** With `filter`: the `nextCursor` of the previous call. */
  cursor?: string;
  /** With `filter`: how many matching runs this call fires again, at most (and by default) {@link MAX_RERUN}. */
  limit?: number;
  /**
   * `"original"` (default): the version each source run ran on (its last
   * attempt's), refused per run (`agent_version_unavailable`) when no worker
   * of it is live; `"newest"`: the newest live version; or a version by name
   * (refused the same way when none of its workers is live).
   */
  version?: RerunVersion;
  overrides?: RerunOverrides;
  /**
   * Names the re-run request: a call made again with the same key (and
   * source run) fires nothing twice, for 24 hours. Default: the version and
   * overrides asked for, so that re-running the same runs the same way twice
   * in a day answers with the first re-runs (`deduplicated`); give a key of
   * your own to fire them again.
   */
  idempotencyKey?: string;
}

/** One source run's re-run: the new run's id, or why there is none. */
export type RerunItem = BatchOutcome &
  Omit<FireManyItem, "ok" | "error" | "retryable"> & {
    /** The run fired again. */
    sourceRunId: string;
  };

/** The answer of `rerun`: one result per source run, in order, and where the filter goes on. */
export type RerunResult = BatchCounts & {
  results: RerunItem[];
  /** With `filter`: whether more runs match. */
  hasMore: boolean;
  nextCursor?: string;
};

/** What `rerun` works with: the client's reads and fires, and the registry it reads live versions from. */
interface RerunContext {
  readLog(runId: string): Promise<RunEvent[]>;
  list(options: ListOptions): Promise<Page<RunSummary>>;
  fireMany(specs: readonly FireSpec[]): Promise<FireManyResult>;
  redis: RedisConnection;
  keys: EngineKeys;
  now: () => Date;
}

/** A source run's spec fired again, or the error refusing it. */
type Prepared = { ok: true; spec: FireSpec } | { ok: false; error: ErrandError };

function refused(error: ErrandError): Prepared {
  return { ok: false, error };
}

function invalid(message: string): never {
  throw new ErrandError("invalid_spec", `invalid rerun: ${message}`);
}

/** The version the run's last attempt ran, else the one it was pinned to at fire. */
function versionThatRan(events: readonly RunEvent[]): string | undefined {
  for (let index = events.length - 1; index >= 0; index -= 1) {
    const event = events[index]!;
    if (event.type === "run-started" && event.data.agentVersion !== undefined) {
      return event.data.agentVersion;
    }
    if (event.type === "run-queued") return event.data.agentVersion;
  }
  return undefined;
}

/** The idempotency key of the re-run of `sourceRunId` within the request `requestKey`. */
function rerunKey(requestKey: string, sourceRunId: string): string {
  return `rerun:${requestKey}:${sourceRunId}`;
}

/** The default request key: a digest of the version and overrides asked for. */
function defaultRequestKey(version: RerunVersion, overrides: RerunOverrides | undefined): string {
  return createHash("sha256")
    .update(JSON.stringify({ version, overrides: overrides ?? {} }))
    .digest("base64url")
    .slice(0, 22);
}

/** The source run's own budget (not its ancestors'), as `fire` takes it. */
function ownBudget(queued: RunEventOf<"run-queued">): FireSpec["budget"] {
  const own = queued.data.budget?.scopes.find((scope) => scope.runId === queued.runId);
  return own === undefined ? undefined : { ...own.limits, onExceeded: own.onExceeded };
}

/** How long the source run was allowed from its queueing to its deadline, when it had one. */
function allowanceMs(queued: RunEventOf<"run-queued">): number | undefined {
  const { deadlineAt } = queued.data.limits;
  if (deadlineAt === undefined) return undefined;
  return Math.max(1, Math.round(Date.parse(deadlineAt) - Date.parse(queued.at)));
}

/**
 * Whether a worker of `version` of `agent` is live, read once per agent for
 * the whole call.
 */
function liveVersions(context: RerunContext) {
  const byAgent = new Map<string, Promise<Set<string>>>();
  return (agent: string): Promise<Set<string>> => {
    let live = byAgent.get(agent);
    if (live === undefined) {
      live = readAgentRegistrations(context.redis, context.keys, agent).then(
        (registrations) =>
          new Set(
            versionStandings(registrations, context.now())
              .filter((standing) => standing.live)
              .map((standing) => standing.version),
          ),
      );
      byAgent.set(agent, live);
    }
    return live;
  };
}

/** The fire spec of `sourceRunId` fired again as `options` ask, or why it cannot be. */
async function prepare(
  context: RerunContext,
  sourceRunId: string,
  options: RerunOptions,
  live: (agent: string) => Promise<Set<string>>,
): Promise<Prepared> {
  const events = await context.readLog(sourceRunId);
  const queued = events[0];
  if (queued?.type !== "run-queued") return refused(runNotFound(sourceRunId));
  const { agent, input, outputSchema, metadata, priority, concurrencyKey } = queued.data;
  const modelSettings = RunModelSettings.safeParse(queued.data.modelSettings ?? {});
  if (!modelSettings.success) {
    return refused(
      new ErrandError(
        "invalid_spec",
        `run ${sourceRunId} was fired with model settings errand no longer reads`,
        {
          details: { runId: sourceRunId },
        },
      ),
    );
  }
  const asked = options.version ?? "original";
  let agentVersion: string | undefined;
  if (asked !== "newest") {
    agentVersion = asked === "original" ? versionThatRan(events) : asked;
    if (agentVersion === undefined) {
      return refused(
        new ErrandError(
          "agent_version_unavailable",
          `run ${sourceRunId} has no recorded version of agent ${JSON.stringify(agent)} (it never started, or ran before versions were logged); re-run it with version "newest" or a version by name`,
          { details: { runId: sourceRunId, agent } },
        ),
      );
    }
    if (!(await live(agent)).has(agentVersion)) {
      return refused(
        new ErrandError(
          "agent_version_unavailable",
          `no worker of version ${JSON.stringify(agentVersion)} of agent ${JSON.stringify(agent)} is live, so run ${sourceRunId} cannot be re-run on it; start one, or re-run with version "newest"`,
          { details: { runId: sourceRunId, agent, agentVersion }, retryable: true },
        ),
      );
    }
  }
  const overrides = options.overrides ?? {};
  const budget = overrides.budget ?? ownBudget(queued);
  const deadlineMs = overrides.deadlineMs ?? allowanceMs(queued);
  const runPriority = overrides.priority ?? priority;
  const requestKey = options.idempotencyKey ?? defaultRequestKey(asked, options.overrides);
  return {
    ok: true,
    spec: {
      agent,
      input: "input" in overrides ? overrides.input : input,
      ...(outputSchema === undefined ? {} : { outputSchema }),
      metadata: { ...metadata, ...overrides.metadata, [RERUN_OF_KEY]: sourceRunId },
      ...(runPriority === undefined ? {} : { priority: runPriority }),
      ...(concurrencyKey === undefined ? {} : { concurrencyKey }),
      ...(queued.data.modelSettings === undefined ? {} : { modelSettings: modelSettings.data }),
      ...(budget === undefined ? {} : { budget }),
      ...(deadlineMs === undefined ? {} : { deadlineMs }),
      ...(agentVersion === undefined ? {} : { agentVersion }),
      idempotencyKey: rerunKey(requestKey, sourceRunId),
    },
  };
}

/** The source runs of the call: `options.runs`, or a page of the runs `options.filter` matches. */
async function sourceRuns(
  context: RerunContext,
  options: RerunOptions,
): Promise<{ runIds: string[]; hasMore: boolean; nextCursor?: string }> {
  if ((options.runs === undefined) === (options.filter === undefined)) {
    invalid("give runs (by id) or filter (as list takes it), one of them");
  }
  if (options.runs !== undefined) {
    if (options.cursor !== undefined || options.limit !== undefined) {
      invalid("cursor and limit go with filter, not with runs");
    }
    if (options.runs.length === 0 || options.runs.length > MAX_RERUN) {
      invalid(`runs holds 1 … ${MAX_RERUN} run ids, not ${options.runs.length}`);
    }
    return { runIds: [...new Set(options.runs)], hasMore: false };
  }
  const limit = options.limit ?? MAX_RERUN;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_RERUN) {
    invalid(`limit must be a whole number 1 … ${MAX_RERUN}, not ${limit}`);
  }
  const page = await context.list({
    ...options.filter,
    limit,
    ...(options.cursor === undefined ? {} : { cursor: options.cursor }),
  });
  return {
    runIds: page.items.map((summary) => summary.runId),
    hasMore: page.hasMore,
    ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }),
  };
}

/** Fires again the runs `options` name (see the module documentation). */
export async function rerun(context: RerunContext, options: RerunOptions): Promise<RerunResult> {
  const { runIds, hasMore, nextCursor } = await sourceRuns(context, options);
  const live = liveVersions(context);
  const prepared = await Promise.all(runIds.map((runId) => prepare(context, runId, options, live)));
  const specs = prepared.flatMap((entry) => (entry.ok ? [entry.spec] : []));
  const fired = (specs.length === 0 ? [] : (await context.fireMany(specs)).results).values();
  const results = prepared.map((entry, index): RerunItem => {
    const sourceRunId = runIds[index]!;
    if (entry.ok) return { sourceRunId, ...fired.next().value! };
    const { code, message, retryable } = entry.error;
    return { sourceRunId, ok: false, error: { code, message }, retryable };
  });
  return { ...batch(results), hasMore, ...(nextCursor === undefined ? {} : { nextCursor }) };
}
