/**
 * `read-standings-n.lua` as a read: where each run of a list stands, and the
 * stored results of the runs read in full, one script call per shard and
 * 1,000 runs (a shard's keys share one hash tag, so each call runs on one
 * node of a Redis Cluster too), the calls sent together — one round trip,
 * two commands a call for its runs read in full (an `MGET` of their results,
 * an `EXISTS` of the heads of those without one) and two lookups a run only
 * counted, on the server, and one character a run in the reply, beside the
 * text of each result read.
 */
import { ErrandError } from "@errand/core";
import { shardOfRunId } from "@errand/core/ops";
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
  lua: readLuaFile(new URL("../../lua/read-standings-n.lua", import.meta.url)),
  numberOfKeys: "variable",
} as const;

/** What the script answers for a run; `unexplained`: a stored result whose head is gone, to read in full. */
type ScriptStanding = RunStanding | "unexplained";

const STANDING_OF_CHARACTER: Readonly<Record<string, ScriptStanding>> = {
  s: "succeeded",
  f: "failed",
  c: "cancelled",
  p: "pending",
  n: "not_found",
  "?": "unexplained",
};

/**
 * Defines `read-standings-n.lua` on `redis` and returns the function that calls
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
  /** `read-standings-n.lua` on `redis` (see {@link defineStandingsScript}). */
  standingsScript: LuaCall;
}

/** Where runs stand, and the stored result (its text) of each run read in full that has one. */
export interface Standings {
  /** Every run asked about but those of {@link stored}. */
  standings: Map<string, ScriptStanding>;
  /** The text of the stored result of each run read in full that has one. */
  stored: Map<string, string>;
}

/** The runs of one shard in one script call: those read in full first. */
interface ShardCall {
  runIds: readonly string[];
  inFull: number;
}

/** How {@link readStandings} reads. */
export interface StandingsOptions {
  /**
   * The runs read in full are expected pending (the first read of a wait):
   * a call's lone run read in full is read head first, one lookup while it
   * is not settled (two once it is), instead of its result first (one
   * lookup once settled, two before). Several are read together as always.
   */
  expectPending?: boolean;
}

function isStringList(reply: unknown): reply is string[] {
  return Array.isArray(reply) && reply.every((item) => typeof item === "string");
}

/** The standings of the runs of one call, and the results of those read in full, into `into`. */
async function readCall(
  context: OutcomeReads,
  call: ShardCall,
  into: Standings,
  options: StandingsOptions,
): Promise<void> {
  const { runIds, inFull } = call;
  const keys: string[] = [];
  for (const runId of runIds) keys.push(context.keys.result(runId), context.keys.runHead(runId));
  const reply = await context.standingsScript(keys, [inFull, options.expectPending ? "1" : ""]);
  // The reply read in place, by index: no copies of it, no array of its characters.
  const list = isStringList(reply) ? reply : [];
  const characters = list[0] ?? "";
  let wellFormed = characters.length === runIds.length;
  let results = 0;
  for (let index = 0; wellFormed && index < characters.length; index++) {
    const character = characters[index]!;
    // "r" (a result read, its text among the texts after the characters) only for a run read in full.
    if (character === "r") results += 1;
    wellFormed =
      character === "r" ? index < inFull : STANDING_OF_CHARACTER[character] !== undefined;
  }
  if (!wellFormed || results !== list.length - 1) {
    throw new ErrandError(
      "internal",
      `read-standings-n.lua answered ${JSON.stringify(reply)} for ${runIds.length} runs`,
    );
  }
  let text = 1;
  for (let index = 0; index < characters.length; index++) {
    const runId = runIds[index]!;
    const character = characters[index]!;
    if (character === "r") {
      into.stored.set(runId, list[text]!);
      text += 1;
    } else {
      into.standings.set(runId, STANDING_OF_CHARACTER[character]!);
    }
  }
}

/**
 * The most runs one script call looks at: a call blocks Redis while it runs
 * (a few µs a run), so a long list is split into calls sent together.
 */
const STANDINGS_PER_CALL = 1_000;

/** Runs grouped by shard, those read in full first. */
interface ShardRuns {
  inFull: string[];
  counted: string[];
}

/**
 * The runs of `inFull` and `counted` grouped by shard, in calls of at most
 * {@link STANDINGS_PER_CALL} runs, each call's runs read in full first.
 */
function scriptCalls(inFull: readonly string[], counted: readonly string[]): ShardCall[] {
  // One run (a `result` of one run): its call alone, without grouping.
  if (inFull.length + counted.length === 1) {
    return [{ runIds: inFull.length === 1 ? inFull : counted, inFull: inFull.length }];
  }
  const byShard = new Map<number, ShardRuns>();
  const add = (runId: string, list: keyof ShardRuns) => {
    const shard = shardOfRunId(runId);
    let shardRuns = byShard.get(shard);
    if (shardRuns === undefined) {
      shardRuns = { inFull: [], counted: [] };
      byShard.set(shard, shardRuns);
    }
    shardRuns[list].push(runId);
  };
  for (const runId of inFull) add(runId, "inFull");
  for (const runId of counted) add(runId, "counted");
  return [...byShard.values()].flatMap((shardRuns) => {
    const runIds = [...shardRuns.inFull, ...shardRuns.counted];
    const calls: ShardCall[] = [];
    for (let start = 0; start < runIds.length; start += STANDINGS_PER_CALL) {
      calls.push({
        runIds: runIds.slice(start, start + STANDINGS_PER_CALL),
        inFull: Math.min(Math.max(shardRuns.inFull.length - start, 0), STANDINGS_PER_CALL),
      });
    }
    return calls;
  });
}

/**
 * Where each run of `inFull` and `counted` (well-formed run ids, each once in
 * either list) stands, with the text of the stored result of each run of
 * `inFull` that has one (such a run is in `stored`, not in `standings`). The
 * script calls are sent before this returns its promise, so commands issued
 * right after it go in the same round trip, and run after it on the server.
 */
export async function readStandings(
  context: OutcomeReads,
  inFull: readonly string[],
  counted: readonly string[] = [],
  options: StandingsOptions = {},
): Promise<Standings> {
  const read: Standings = { standings: new Map(), stored: new Map() };
  const calls = scriptCalls(inFull, counted);
  // One call (every `result`): its own promise, without a `Promise.all` around it.
  if (calls.length === 1) await readCall(context, calls[0]!, read, options);
  else await Promise.all(calls.map((call) => readCall(context, call, read, options)));
  return read;
}
