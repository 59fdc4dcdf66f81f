/**
 * Writing outcomes: a shard's run indexes (`list` reads them) brought up to
 * date with the runs' heads and, for settled runs, their results stored and
 * announced — one script call for a whole batch of a shard's runs
 * (`lua/index-runs-n.lua`; docs/architecture/collector.md). Every index is a ZSET
 * with score 0 whose members are `<createdAt ms, 15 digits>:<runId>`, so
 * lexicographic order is creation order and a list cursor is one member.
 * Writing is idempotent: the indexes follow each run's head atomically.
 */
import { ErrandError, type RunResult } from "@errand/core";
import { createdAtOfRunId, shardOfRunId } from "@errand/core/ops";
import type { StoreKeys } from "../keys.js";
import { defineLuaCommand, type LuaCall, type RedisClient, readLuaFile } from "../lua-command.js";
import { storedResultJson } from "./stored-results.js";

const INDEX_RUNS_SCRIPT = {
  command: "errandIndexRuns",
  lua: readLuaFile(new URL("../../lua/index-runs-n.lua", import.meta.url)),
  numberOfKeys: "variable",
} as const;

/**
 * What writing outcomes works with. A stored result (and a settled run's
 * children) expires with the run's log: it gets the head's
 * remaining time to live, so retention has one source — the writer that
 * settled the run (the store's `retentionSeconds`).
 */
export interface OutcomeWriter {
  keys: StoreKeys;
  /** `index-runs-n.lua` on the writer's client (see {@link defineIndexRunsScript}). */
  indexRunsScript: LuaCall;
}

/** Defines `index-runs-n.lua` on `redis` and returns the function that calls it. */
export function defineIndexRunsScript(redis: RedisClient): LuaCall {
  return defineLuaCommand(redis, INDEX_RUNS_SCRIPT);
}

const MEMBER_TIME_DIGITS = 15;

/** The index member of a run created at `createdAt` (ISO-8601; the runId's time when it is not one). */
export function runIndexMember(createdAt: string, runId: string): string {
  const parsed = Date.parse(createdAt);
  const ms = Number.isNaN(parsed) ? createdAtOfRunId(runId) : parsed;
  if (ms < 0 || ms >= 10 ** MEMBER_TIME_DIGITS) {
    throw new ErrandError("internal", `run ${runId}: createdAt ${createdAt} cannot be indexed`);
  }
  return `${String(ms).padStart(MEMBER_TIME_DIGITS, "0")}:${runId}`;
}

/** A run one message on a shard's settled channel announces. */
export interface AnnouncedRun {
  runId: string;
  /** Its result as stored (`storedResultJson`), when the message carries it. */
  result?: string;
}

/**
 * The runs one message on a shard's settled channel announces: an
 * `index-runs-n.lua` call announces every run whose result it stored in one
 * message, the runIds separated by spaces (a runId has none; an older
 * collector's message is a single runId, read alike), then, when it carries
 * results, a space, a line break and one line a run in the same order: its
 * stored result (JSON, which holds no raw line break), or an empty line for
 * a result too long to carry (docs/architecture/collector.md#results-in-the-announcement).
 */
export function announcedRuns(message: string): AnnouncedRun[] {
  const lineBreak = message.indexOf("\n");
  const runIds = (lineBreak === -1 ? message : message.slice(0, lineBreak)).split(" ");
  if (lineBreak === -1) return runIds.map((runId) => ({ runId }));
  // The space before the line break leaves an empty word after the last runId.
  runIds.pop();
  const results = message.slice(lineBreak + 1).split("\n");
  return runIds.map((runId, index) => {
    const result = results[index];
    return result ? { runId, result } : { runId };
  });
}

/** The runIds one message on a shard's settled channel announces (see {@link announcedRuns}). */
export function announcedRunIds(message: string): string[] {
  return announcedRuns(message).map(({ runId }) => runId);
}

/** The runId of an index member. */
export function runIdOfIndexMember(member: string): string {
  return member.slice(MEMBER_TIME_DIGITS + 1);
}

/** What the indexes need to know about a run. */
export interface IndexedRun {
  runId: string;
  agent: string;
  /** The tenant of its `run-queued`, when it has one: the run is indexed under it too. */
  tenant?: string;
  /** `at` of its `run-queued`. */
  createdAt: string;
  /** `limits.deadlineAt` of its `run-queued` (ISO-8601); undefined for none. */
  deadlineAt?: string;
  /**
   * True when its `run-queued` was not read (a settled run whose result did
   * not come from its fold in the stream), so that it may have a deadline to
   * drop although `deadlineAt` is undefined.
   */
  deadlineUnknown?: boolean;
  /**
   * True when the writer's own earlier call indexed the run in its agent's
   * and its tenant's runs (it answered true for the run's `run-queued`), so
   * that the settling call leaves those writes out. Only a writer that saw
   * that answer may say so; unset, they are written again (idempotent).
   */
  listed?: boolean;
  /**
   * When the settled run's log and head expire, in ms since the epoch, as the
   * append that settled it said (its shard entry's `expiresAt`); unset, the
   * call reads the head's expiry (one command more).
   */
  expiresAt?: number;
  /**
   * True when the append that settled the run (one older than
   * `childrenExpired`) moved it from the active runs to its status's runs
   * and gave its children their expiry (its shard entry's `moved`), so that the call reads no head and only stores its
   * result (with `expiresAt` and a result only).
   */
  moved?: boolean;
  /**
   * True when the append that settled the run gave its children their
   * expiry without moving it (its shard entry's `childrenExpired`), so that
   * the call leaves its children set be.
   */
  childrenExpired?: boolean;
  /**
   * The settled status its head holds, given only by a caller that knows the
   * head is there — the append that settled it gave it an expiry far enough
   * ahead (see `expiresAt`) — so that the call reads no head. Unset, the
   * call reads the head's status (and finds an expired head gone).
   */
  status?: "succeeded" | "failed" | "cancelled";
}

/** A run to index, and its result when it settled. */
export interface RunToIndex {
  run: IndexedRun;
  /** The settled run's result: stored (once) and announced by the same call. */
  result?: RunResult;
}

/** The keys of an `index-runs-n.lua` call that are its shard's: its status indexes and deadlines. */
const SHARD_KEYS = 5;

/** The keys of one run in an `index-runs-n.lua` call (see {@link IndexSegment}). */
const SEGMENT_KEYS = 5;

/** One run's part of an `index-runs-n.lua` call: its keys and its arguments. */
export interface IndexSegment {
  keys: [head: string, agentRuns: string, result: string, children: string, tenantRuns: string];
  /**
   * Its arguments: its runId, its result as stored (`""` when it has none),
   * and the rest as one argument of words separated by single spaces (one
   * argument, not eight: a client spends its work on each argument of a
   * call) — its index member, its deadline, whether it is listed, whether it
   * has a tenant, its expiry, whether it was moved, its status, whether its
   * children expired, as `index-runs-n.lua` reads them (`""` an empty word).
   */
  args: [runId: string, result: string, words: string];
}

/**
 * The part of `{ run, result }` in an index call. Throws for a run that
 * cannot be indexed (a malformed run id or creation time), so that one bad
 * run fails alone, before the call.
 */
export function indexSegment(keys: StoreKeys, { run, result }: RunToIndex): IndexSegment {
  const deadline = run.deadlineAt === undefined ? Number.NaN : Date.parse(run.deadlineAt);
  // One template, not a list joined: the words are the call's, and only its.
  const words = `${runIndexMember(run.createdAt, run.runId)} ${
    run.deadlineUnknown ? "?" : Number.isNaN(deadline) ? "" : deadline
  } ${run.listed ? "1" : ""} ${run.tenant === undefined ? "" : "1"} ${run.expiresAt ?? ""} ${
    run.moved ? "1" : ""
  } ${run.status ?? ""} ${run.childrenExpired ? "1" : ""}`;
  const shard = shardOfRunId(run.runId);
  return {
    keys: [
      keys.runHead(run.runId),
      keys.runIndexByAgent(shard, run.agent),
      keys.result(run.runId),
      keys.children(run.runId),
      keys.runIndexByTenant(shard, run.tenant ?? ""),
    ],
    args: [run.runId, result === undefined ? "" : storedResultJson(result), words],
  };
}

/**
 * Brings runs of `shard` in the shard's indexes up to date with their heads,
 * in one script call (`lua/index-runs-n.lua`); a run whose segment carries its
 * result then gets its result stored (once) and announced on the shard's
 * settled channel by the same call (one message for the call's runs:
 * {@link announcedRunIds}), its result and children
 * expiring with its log (the head's TTL). Resolves with one flag per run, in order: false for a run
 * without a head (it expired, or never was), whose index entries were
 * removed and whose result was not stored.
 */
export async function indexRuns(
  writer: OutcomeWriter,
  shard: number,
  segments: readonly IndexSegment[],
): Promise<boolean[]> {
  if (segments.length === 0) return [];
  const { keys, indexRunsScript } = writer;
  // Both lists sized once and filled by index: a list grown by pushes reallocates as it grows, each call.
  const callKeys = new Array<string>(SHARD_KEYS + SEGMENT_KEYS * segments.length);
  callKeys[0] = keys.runIndexByStatus(shard, "active");
  callKeys[1] = keys.runIndexByStatus(shard, "succeeded");
  callKeys[2] = keys.runIndexByStatus(shard, "failed");
  callKeys[3] = keys.runIndexByStatus(shard, "cancelled");
  callKeys[4] = keys.deadlines(shard);
  const args = new Array<string>(1 + 3 * segments.length);
  args[0] = keys.settledChannel(shard);
  let k = SHARD_KEYS;
  let a = 1;
  for (let position = 0; position < segments.length; position++) {
    const segment = segments[position]!;
    for (let i = 0; i < SEGMENT_KEYS; i++) callKeys[k++] = segment.keys[i]!;
    args[a++] = segment.args[0];
    args[a++] = segment.args[1];
    args[a++] = segment.args[2];
  }
  const replies = await indexRunsScript(callKeys, args);
  if (!Array.isArray(replies) || replies.length !== segments.length) {
    throw new ErrandError("internal", `index-runs-n.lua answered ${JSON.stringify(replies)}`);
  }
  return replies.map((reply) => reply === 1);
}
