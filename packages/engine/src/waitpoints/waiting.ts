/**
 * `waitpoints.list()`: the waitpoints waiting for an answer, oldest first —
 * what `errand runs waiting` shows. It reads each shard's index of waiting
 * waitpoints and checks every token against its run's log, which is always
 * current: a waitpoint that closed meanwhile (timed out, its run settled or
 * expired) is dropped from the index. With `runId`, the open waitpoints of
 * that run alone, read from its log.
 */
import {
  ErrandError,
  foldRun,
  isRunId,
  isWaitpointOverdue,
  openWaitpoints,
  parseWaitpointToken,
  type RunState,
  runNotFound,
  type WaitpointState,
} from "@errand/core";
import type { EngineResources } from "../resources.js";
import { removeWaiting } from "./waiting-index.js";

/** The most waitpoints one `list` answers. */
export const MAX_WAITING_LISTED = 500;

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

/** The waiting waitpoints: `{ items, count, hasMore }`. */
export interface WaitingWaitpoints {
  items: WaitingWaitpoint[];
  count: number;
  hasMore: boolean;
}

/** Options of `waitpoints.list`. */
export interface WaitingOptions {
  /** Only this run's waitpoints. */
  runId?: string;
}

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

/** Lists the waitpoints waiting for an answer (see the module's header). */
export async function listWaiting(
  context: WaitingContext,
  options: WaitingOptions = {},
): Promise<WaitingWaitpoints> {
  if (options.runId !== undefined) return waitingOfRun(context, options.runId);
  const { redis, keys } = context;
  const shards = Array.from({ length: context.shards }, (_, shard) => shard);
  const perShard = await Promise.all(
    shards.map((shard) => redis.zrange(keys.waitingWaitpoints(shard), 0, MAX_WAITING_LISTED)),
  );
  const hasMore = perShard.some((tokens) => tokens.length > MAX_WAITING_LISTED);
  const tokens = perShard.flatMap((shardTokens) => shardTokens.slice(0, MAX_WAITING_LISTED));
  const runs = new Map<string, RunState>();
  for (const runId of new Set(tokens.map((token) => parseWaitpointToken(token).runId))) {
    runs.set(runId, await readRun(context, runId));
  }
  const now = context.now();
  const items: WaitingWaitpoint[] = [];
  for (const token of tokens) {
    const state = runs.get(parseWaitpointToken(token).runId)!;
    const waitpoint = waitingOf(state, now).find((open) => open.token === token);
    if (waitpoint === undefined) await removeWaiting(context, token);
    else items.push(itemOf(state, waitpoint));
  }
  items.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  const listed = items.slice(0, MAX_WAITING_LISTED);
  return { items: listed, count: listed.length, hasMore: hasMore || items.length > listed.length };
}
