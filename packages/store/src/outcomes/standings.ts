/**
 * `read-standings.lua` as a read: where each run of a list stands, one
 * script call per shard and 1,000 runs (a shard's keys share one hash tag,
 * so each call runs on one node of a Redis Cluster too), the calls sent
 * together — one round trip, two key lookups a run on the server and one
 * character a run in the reply.
 */
import { ErrandError, shardOfRunId } from "@errand/core";
import type { StoreKeys } from "../keys.js";
import { defineLuaCommand, type LuaCall, type RedisClient, readLuaFile } from "../lua-command.js";

/**
 * Where a run stands for `collect`: settled as its stored result says,
 * `pending` while it exists without a stored result (it may have settled
 * and not been indexed yet), `not_found` when it was never fired, has
 * expired, or is not a run id at all.
 */
export type RunStanding = "succeeded" | "failed" | "cancelled" | "pending" | "not_found";

const STANDINGS_SCRIPT = {
  command: "errandReadStandings",
  lua: readLuaFile(new URL("../../lua/read-standings.lua", import.meta.url)),
  numberOfKeys: "variable",
} as const;

/** What the script answers for a run; `unexplained`: a stored result whose head is gone, to read in full. */
export type ScriptStanding = RunStanding | "unexplained";

const STANDING_OF_CHARACTER: Readonly<Record<string, ScriptStanding>> = {
  s: "succeeded",
  f: "failed",
  c: "cancelled",
  p: "pending",
  n: "not_found",
  "?": "unexplained",
};

/**
 * Defines `read-standings.lua` on `redis` and returns the function that calls
 * it. Call it when the connection is made, before any command: an ioredis
 * auto-pipeline made before a script is defined cannot carry that script.
 */
export function defineStandingsScript(redis: RedisClient): LuaCall {
  return defineLuaCommand(redis, STANDINGS_SCRIPT);
}

/** What reading outcomes works with: a client, the keys, and the standings script defined on the client. */
export interface OutcomeReads {
  redis: RedisClient;
  keys: StoreKeys;
  /** `read-standings.lua` on `redis` (see {@link defineStandingsScript}). */
  standingsScript: LuaCall;
}

/** The standings of runs of one shard, in order. */
async function readCall(
  context: OutcomeReads,
  runIds: readonly string[],
): Promise<ScriptStanding[]> {
  const keys = runIds.flatMap((runId) => [context.keys.result(runId), context.keys.runHead(runId)]);
  const reply = await context.standingsScript(keys, []);
  const standings =
    typeof reply === "string" && reply.length === runIds.length
      ? [...reply].map((character) => STANDING_OF_CHARACTER[character])
      : [];
  if (standings.length !== runIds.length || standings.includes(undefined)) {
    throw new ErrandError(
      "internal",
      `read-standings.lua answered ${JSON.stringify(reply)} for ${runIds.length} runs`,
    );
  }
  return standings as ScriptStanding[];
}

/**
 * The most runs one script call looks at: a call blocks Redis while it runs
 * (a few µs a run), so a long list is split into calls sent together.
 */
const STANDINGS_PER_CALL = 1_000;

/** `runIds` grouped by shard, in calls of at most {@link STANDINGS_PER_CALL} runs. */
function scriptCalls(runIds: readonly string[]): string[][] {
  const byShard = new Map<number, string[]>();
  for (const runId of runIds) {
    const shard = shardOfRunId(runId);
    const shardRuns = byShard.get(shard);
    if (shardRuns === undefined) byShard.set(shard, [runId]);
    else shardRuns.push(runId);
  }
  return [...byShard.values()].flatMap((shardRuns) => {
    const calls: string[][] = [];
    for (let start = 0; start < shardRuns.length; start += STANDINGS_PER_CALL) {
      calls.push(shardRuns.slice(start, start + STANDINGS_PER_CALL));
    }
    return calls;
  });
}

/**
 * Where each run of `runIds` (well-formed run ids, each once) stands. The
 * script calls are sent before this returns its promise, so commands issued
 * right after it go in the same round trip, and run after it on the server.
 */
export async function readStandings(
  context: OutcomeReads,
  runIds: readonly string[],
): Promise<Map<string, ScriptStanding>> {
  const calls = scriptCalls(runIds);
  const replies = await Promise.all(calls.map((callRuns) => readCall(context, callRuns)));
  const standings = new Map<string, ScriptStanding>();
  calls.forEach((callRuns, index) => {
    for (const [position, runId] of callRuns.entries()) {
      standings.set(runId, replies[index]![position]!);
    }
  });
  return standings;
}
