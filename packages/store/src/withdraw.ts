/**
 * Withdrawing a run that was written but never fired (`lua/withdraw-8.lua`):
 * a producer that wrote a run's `run-queued` and then could not enqueue its
 * job takes the run back, so that no run waits for a job that never comes.
 * Only a run nothing happened to since is withdrawn, and the idempotency key
 * it was fired under is released with it; the script frees memory
 * only, so Redis runs it even when it is out of memory and refusing writes.
 */
import { ErrandError } from "@errand/core";
import { shardOfRunId } from "@errand/core/ops";
import { idempotencyRedisKey } from "./idempotency.js";
import type { StoreKeys } from "./keys.js";
import { defineLuaCommand, type LuaCall, type RedisClient, readLuaFile } from "./lua-command.js";
import { runIndexMember } from "./outcomes/index-runs.js";

const WITHDRAW_SCRIPT = {
  command: "errandWithdraw",
  lua: readLuaFile(new URL("../lua/withdraw-8.lua", import.meta.url)),
  numberOfKeys: "variable",
} as const;

/** What became of a run one tried to withdraw. */
export type Withdrawal =
  /** Its log, head and blobs are gone, and it left the shard's indexes. */
  | "withdrawn"
  /** It has no head: there was nothing to withdraw. */
  | "absent"
  /** Something happened to it after its `run-queued` (a worker started it, a cancel came): left as it is. */
  | "moved-on";

/** The run to withdraw, as its `run-queued` described it. */
export interface RunToWithdraw {
  runId: string;
  agent: string;
  /** `at` of its `run-queued`. */
  createdAt: string;
  /** The idempotency key it was fired under, released when it still names this run. */
  idempotencyKey?: string;
}

/** Defines `withdraw-8.lua` on `redis` and returns the function that withdraws a run. */
export function defineWithdraw(
  redis: RedisClient,
  keys: StoreKeys,
): (run: RunToWithdraw) => Promise<Withdrawal> {
  const call: LuaCall = defineLuaCommand(redis, WITHDRAW_SCRIPT);
  return async ({ runId, agent, createdAt, idempotencyKey }) => {
    const shard = shardOfRunId(runId);
    const runKeys = [
      keys.runLog(runId),
      keys.runHead(runId),
      keys.runBlobs(runId),
      keys.runIndex(shard),
      keys.runIndexByStatus(shard, "active"),
      keys.runIndexByAgent(shard, agent),
      keys.deadlines(shard),
    ];
    if (idempotencyKey !== undefined) {
      runKeys.push(idempotencyRedisKey(keys, idempotencyKey, shard));
    }
    const reply = await call(runKeys, [runId, runIndexMember(createdAt, runId)]);
    switch (reply) {
      case 1:
        return "withdrawn";
      case 0:
        return "absent";
      case -1:
        return "moved-on";
      default:
        throw new ErrandError("internal", `withdraw-8.lua answered ${JSON.stringify(reply)}`);
    }
  };
}
