/**
 * `list({ status?, agent?, parentRunId?, tenant?, limit?, cursor? })`: a page of run
 * summaries, newest first (docs/architecture/tool-results.md#the-result-vocabulary: `{ items, count, hasMore, nextCursor? }`).
 *
 * It reads the run indexes the appends and the collector keep — per shard, runs by status
 * (`active` holds queued and running runs; every run is the union of the
 * four, read active first), by agent and by tenant — or a parent's
 * children, recorded when each is fired; merges them in creation order, and
 * checks
 * each candidate against its head, which is always current: the filters
 * apply to what the head says, and a run whose head expired is dropped from
 * the index it was found in. The cursor carries the last item's
 * `(createdAt, runId)`, so pages stay stable while new runs arrive.
 */
import { ErrandError, type Page } from "@errand/core";
import {
  decodeCursor,
  encodeCursor,
  isRunId,
  type LimitBounds,
  page,
  resolveLimit,
} from "@errand/core/ops";
import type { HeadStatus, RunHead } from "@errand/store";
import { parseStoredResult, runIdOfIndexMember, runIndexMember } from "@errand/store/ops";
import { TENANT_RULE, TenantName } from "../access/access-grant.js";
import type { ReadsContext } from "./context.js";

/** The default and maximum `limit` of `list`. */
export const LIST_LIMITS: LimitBounds = { default: 50, max: 500 };

const STATUSES: readonly HeadStatus[] = ["queued", "running", "succeeded", "failed", "cancelled"];

/** The status indexes of a shard, whose union holds every run of it: the order `list` reads them in. */
const INDEXED_STATUSES = ["active", "succeeded", "failed", "cancelled"] as const;

/** One run in a list: the summary, without its events or output. */
export interface RunSummary {
  runId: string;
  agent: string;
  status: HeadStatus;
  parentRunId?: string;
  rootRunId: string;
  /** The tenant the run belongs to, when it has one. */
  tenant?: string;
  createdAt: string;
  settledAt?: string;
  /** The error code of a failed or cancelled run. */
  error?: { code: string };
  /** The run's page on the dashboard, when the reader was given a dashboard URL. */
  viewUrl?: string;
}

/** Options of {@link listRuns}. */
export interface ListOptions {
  status?: HeadStatus;
  agent?: string;
  parentRunId?: string;
  /** Only the runs of this tenant (fired with `tenant`, or by a key of this tenant). */
  tenant?: string;
  /** Runs per page. Default 50, at most 500. */
  limit?: number;
  /** The `nextCursor` of the previous page with the same filters. */
  cursor?: string;
}

function invalid(message: string): never {
  throw new ErrandError("invalid_spec", message);
}

/**
 * Where the runs matching the filters are: the index keys whose union holds
 * them all, and how a run is written in them. The collector's indexes hold
 * `<createdAt ms>:<runId>`; a parent's children set holds the runIds alone
 * (they start with their time, so they sort in creation order too).
 */
interface ListSource {
  keys: string[];
  member(createdAt: string, runId: string): string;
  runIdOf(member: string): string;
}

function sourceOf(context: ReadsContext, options: ListOptions): ListSource {
  const { keys } = context;
  if (options.parentRunId !== undefined) {
    const children = keys.children(options.parentRunId);
    return {
      keys: [children],
      member: (_, runId) => runId,
      runIdOf: (member) => member,
    };
  }
  const indexed = (indexKeys: string[]): ListSource => ({
    keys: indexKeys,
    member: runIndexMember,
    runIdOf: runIdOfIndexMember,
  });
  const shards = Array.from({ length: context.shards }, (_, shard) => shard);
  const { agent, status, tenant } = options;
  if (tenant !== undefined)
    return indexed(shards.map((shard) => keys.runIndexByTenant(shard, tenant)));
  if (agent !== undefined)
    return indexed(shards.map((shard) => keys.runIndexByAgent(shard, agent)));
  if (status === "queued" || status === "running") {
    return indexed(shards.map((shard) => keys.runIndexByStatus(shard, "active")));
  }
  if (status !== undefined) {
    return indexed(shards.map((shard) => keys.runIndexByStatus(shard, status)));
  }
  // Active first: a run moves from active to a settled index, atomically, and
  // the keys of a shard are read in order on one connection, so a run moving
  // while they are read is found twice (once kept), never missed.
  return indexed(
    shards.flatMap((shard) =>
      INDEXED_STATUSES.map((indexed) => keys.runIndexByStatus(shard, indexed)),
    ),
  );
}

/** The member of `source` a cursor points below. */
function memberOfCursor(source: ListSource, cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  const [createdAt, runId] = decodeCursor(cursor);
  if (typeof createdAt !== "string" || !isRunId(runId)) {
    invalid(
      "invalid cursor: it is not a cursor of list; pass the nextCursor of the previous page unchanged",
    );
  }
  return source.member(createdAt, runId);
}

function matches(head: RunHead, options: ListOptions): boolean {
  return (
    (options.status === undefined || head.status === options.status) &&
    (options.agent === undefined || head.agent === options.agent) &&
    (options.parentRunId === undefined || head.parentRunId === options.parentRunId) &&
    (options.tenant === undefined || head.tenant === options.tenant)
  );
}

/** An index member and the key it was found in. */
type Candidate = [member: string, key: string];

/** The `count` newest members below `below` over every key, newest first, each once. */
async function newestBelow(
  context: ReadsContext,
  keys: readonly string[],
  below: string | undefined,
  count: number,
): Promise<Candidate[]> {
  const max = below === undefined ? "+" : `(${below}`;
  const perKey = await Promise.all(
    keys.map(async (key) =>
      (await context.redis.zrange(key, max, "-", "BYLEX", "REV", "LIMIT", 0, count)).map(
        (member): Candidate => [member, key],
      ),
    ),
  );
  const newest = perKey.flat().sort(([a], [b]) => (a < b ? 1 : a > b ? -1 : 0));
  return newest
    .filter(([member], index) => index === 0 || newest[index - 1]![0] !== member)
    .slice(0, count);
}

/**
 * A run's summary from its head and its stored result (JSON, or `null` while
 * none is stored): the error code is given once the run has failed or was
 * cancelled and its result is stored.
 */
export function runSummaryOf(head: RunHead, storedResult: string | null): RunSummary {
  const settledWithError = head.status === "failed" || head.status === "cancelled";
  const code =
    settledWithError && storedResult !== null
      ? parseStoredResult(head.runId, storedResult).error?.code
      : undefined;
  return {
    runId: head.runId,
    agent: head.agent,
    status: head.status,
    ...(head.parentRunId === undefined ? {} : { parentRunId: head.parentRunId }),
    rootRunId: head.rootRunId,
    ...(head.tenant === undefined ? {} : { tenant: head.tenant }),
    createdAt: head.createdAt,
    ...(head.settledAt === undefined ? {} : { settledAt: head.settledAt }),
    ...(code === undefined ? {} : { error: { code } }),
  };
}

async function summarize(context: ReadsContext, head: RunHead): Promise<RunSummary> {
  const settledWithError = head.status === "failed" || head.status === "cancelled";
  const stored = settledWithError ? await context.redis.get(context.keys.result(head.runId)) : null;
  return runSummaryOf(head, stored);
}

/** Drops an expired run from where it was found. */
async function prune(context: ReadsContext, [member, key]: Candidate): Promise<void> {
  await context.redis.zrem(key, member);
}

/** A page of run summaries: see the module documentation. */
export async function listRuns(
  context: ReadsContext,
  options: ListOptions = {},
): Promise<Page<RunSummary>> {
  if (options.status !== undefined && !STATUSES.includes(options.status)) {
    invalid(`invalid status ${JSON.stringify(options.status)}: one of ${STATUSES.join(", ")}`);
  }
  if (options.parentRunId !== undefined && !isRunId(options.parentRunId)) {
    invalid(`invalid parentRunId ${JSON.stringify(options.parentRunId)}: not a run id`);
  }
  if (options.tenant !== undefined && !TenantName.safeParse(options.tenant).success) {
    invalid(`invalid tenant ${JSON.stringify(options.tenant)}: ${TENANT_RULE}`);
  }
  const limit = resolveLimit(options.limit, LIST_LIMITS);
  const source = sourceOf(context, options);
  const wanted = limit + 1;
  const found: RunHead[] = [];
  let below = memberOfCursor(source, options.cursor);
  while (found.length < wanted) {
    const count = wanted - found.length;
    const candidates = await newestBelow(context, source.keys, below, count);
    const heads = await Promise.all(
      candidates.map(([member]) => context.store.readHead(source.runIdOf(member))),
    );
    for (const [index, head] of heads.entries()) {
      if (head === undefined) await prune(context, candidates[index]!);
      else if (matches(head, options)) found.push(head);
    }
    below = candidates.at(-1)?.[0];
    if (candidates.length < count) break;
  }
  const items = await Promise.all(found.slice(0, limit).map((head) => summarize(context, head)));
  const last = items.at(-1);
  const hasMore = found.length > limit && last !== undefined;
  return page(
    items,
    hasMore ? { hasMore, nextCursor: encodeCursor([last.createdAt, last.runId]) } : { hasMore },
  );
}
