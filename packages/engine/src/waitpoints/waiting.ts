/**
 * `waitpoints.list()`: the waitpoints waiting for an answer, oldest first —
 * what `errand runs waiting` shows. It reads each shard's index of waiting
 * waitpoints and checks every token against its run's log, which is always
 * current: a waitpoint that closed meanwhile (timed out, its run settled or
 * expired) is dropped from the index. With `runId`, the open waitpoints of
 * that run alone, read from its log.
 */
import { ErrandError, foldRun, type Page, type RunState, type WaitpointState } from "@errand/core";
import {
  decodeCursor,
  encodeCursor,
  isRunId,
  isWaitpointOverdue,
  type LimitBounds,
  openWaitpoints,
  parseWaitpointToken,
  resolveLimit,
  runNotFound,
} from "@errand/core/ops";
import type { EngineResources } from "../resources.js";
import { removeWaiting } from "./waiting-index.js";

/** The default and maximum `limit` of `waitpoints.list`. */
const WAITING_LIMITS: LimitBounds = { default: 100, max: 500 };

/** A waitpoint waiting for an answer. */
export interface WaitingWaitpoint {
  token: string;
  runId: string;
  agent: string;
  question: string;
  answerSchema?: Record<string, unknown>;
  createdAt: string;
  timeoutAt?: string;
}

/** A page of waiting waitpoints: `{ items, count, hasMore, nextCursor? }`. */
export type WaitingWaitpoints = Page<WaitingWaitpoint>;

/** Options of `waitpoints.list`. */
export interface WaitingOptions {
  /** Only this run's waitpoints (all of them, on one page). */
  runId?: string;
  /** Waitpoints per page. Default 100, at most 500. */
  limit?: number;
  /** The `nextCursor` of the previous page. */
  cursor?: string;
}

/** Where a token sorts in the index: when it was created (ms), then the token. */
type IndexKey = readonly [createdAtMs: number, token: string];

/** What listing needs: the resources, and how many shards to look at. */
export interface WaitingContext extends EngineResources {
  shards: number;
}

function itemOf(state: RunState, waitpoint: WaitpointState): WaitingWaitpoint {
  const { token, question, answerSchema, createdAt, timeoutAt } = waitpoint;
  return {
    token,
    runId: state.runId,
    agent: state.queued?.agent ?? "",
    question,
    ...(answerSchema === undefined ? {} : { answerSchema }),
    createdAt,
    ...(timeoutAt === undefined ? {} : { timeoutAt }),
  };
}

async function readRun(context: WaitingContext, runId: string): Promise<RunState> {
  return foldRun(await context.store.readLog(runId), runId);
}

/** The waitpoints of `state` still waiting for an answer (not past their timeout) at `now`. */
function waitingOf(state: RunState, now: Date): WaitpointState[] {
  return openWaitpoints(state).filter((waitpoint) => !isWaitpointOverdue(waitpoint, now));
}

/** The open waitpoints of run `runId`. Throws `invalid_spec` for a malformed runId, `not_found` for an unknown run. */
async function waitingOfRun(context: WaitingContext, runId: string): Promise<WaitingWaitpoints> {
  if (!isRunId(runId)) {
    throw new ErrandError("invalid_spec", `not a run id: ${JSON.stringify(runId)}`);
  }
  const state = await readRun(context, runId);
  if (state.queued === undefined) throw runNotFound(runId);
  const items = waitingOf(state, context.now()).map((waitpoint) => itemOf(state, waitpoint));
  return { items, count: items.length, hasMore: false };
}

/** True when `a` sorts after `b`. */
function isAfter(a: IndexKey, b: IndexKey): boolean {
  return a[0] !== b[0] ? a[0] > b[0] : a[1] > b[1];
}

/** The sort key a cursor carries; `invalid_spec` for one `listWaiting` did not write. */
function keyOfCursor(cursor: string): IndexKey {
  const key = decodeCursor(cursor);
  if (key.length !== 2 || typeof key[0] !== "number" || typeof key[1] !== "string") {
    throw new ErrandError(
      "invalid_spec",
      "invalid cursor: it is not a cursor of waitpoints.list; pass the nextCursor of the previous page unchanged",
    );
  }
  return [key[0], key[1]];
}

/** The first `count` entries of one shard's index that sort after `after` (all from the start without it). */
async function shardEntriesAfter(
  context: WaitingContext,
  shard: number,
  after: IndexKey | undefined,
  count: number,
): Promise<IndexKey[]> {
  const { redis, keys } = context;
  const key = keys.waitingWaitpoints(shard);
  let reply: string[];
  if (after === undefined) {
    reply = await redis.zrange(key, 0, count - 1, "WITHSCORES");
  } else {
    // Entries created in the same ms as `after` may sort before it: fetch past them.
    const sameMs = await redis.zcount(key, after[0], after[0]);
    reply = await redis.zrange(
      key,
      after[0],
      "+inf",
      "BYSCORE",
      "LIMIT",
      0,
      count + sameMs,
      "WITHSCORES",
    );
  }
  const entries: IndexKey[] = [];
  for (let i = 0; i < reply.length; i += 2) entries.push([Number(reply[i + 1]), reply[i]!]);
  return entries.filter((entry) => after === undefined || isAfter(entry, after)).slice(0, count);
}

/** The first `count` entries of every shard's index after `after`, in order. */
async function entriesAfter(
  context: WaitingContext,
  after: IndexKey | undefined,
  count: number,
): Promise<IndexKey[]> {
  const shards = Array.from({ length: context.shards }, (_, shard) => shard);
  const perShard = await Promise.all(
    shards.map((shard) => shardEntriesAfter(context, shard, after, count)),
  );
  return perShard
    .flat()
    .sort((a, b) => (isAfter(a, b) ? 1 : -1))
    .slice(0, count);
}

/**
 * Lists the waitpoints waiting for an answer, oldest first, a page at a time
 * (see the module's header). Entries whose waitpoint closed are dropped from
 * the index as they are met, so a page may be shorter than `limit`, and the
 * last page announced by `hasMore` may be empty.
 */
export async function listWaiting(
  context: WaitingContext,
  options: WaitingOptions = {},
): Promise<WaitingWaitpoints> {
  if (options.runId !== undefined) return waitingOfRun(context, options.runId);
  const limit = resolveLimit(options.limit, WAITING_LIMITS);
  let after = options.cursor === undefined ? undefined : keyOfCursor(options.cursor);
  const items: WaitingWaitpoint[] = [];
  for (;;) {
    const entries = await entriesAfter(context, after, limit + 1);
    const runIds = [...new Set(entries.map(([, token]) => parseWaitpointToken(token).runId))];
    const runs = new Map(
      await Promise.all(
        runIds.map(async (runId) => [runId, await readRun(context, runId)] as const),
      ),
    );
    const now = context.now();
    for (const entry of entries) {
      if (items.length === limit) {
        return { items, count: items.length, hasMore: true, nextCursor: encodeCursor([...after!]) };
      }
      const token = entry[1];
      const state = runs.get(parseWaitpointToken(token).runId)!;
      const waitpoint = waitingOf(state, now).find((open) => open.token === token);
      if (waitpoint === undefined) await removeWaiting(context, token);
      else items.push(itemOf(state, waitpoint));
      after = entry;
    }
    if (entries.length <= limit) return { items, count: items.length, hasMore: false };
  }
}
