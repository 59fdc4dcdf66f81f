/**
 * The decided ticks of a schedule whose `overlap` looks at its previous run
 * (`skip`, `cancel-previous`): one verdict per tick, made once by
 * `decide-schedule-ticks-1.lua` for every process that handles the tick
 * (docs/architecture/schedules.md#overlap-and-catch-up). This module calls
 * the script and reads its replies; what the previous run's standing is,
 * `fire-tick.ts` looks up.
 */
import { ErrandError } from "@errand/core";
import { defineLuaCommand, type LuaCall, type LuaScript, readLuaFile } from "@errand/store/ops";
import type { RedisConnection } from "../redis/connection.js";

const DECIDE: LuaScript = {
  command: "errandDecideScheduleTicks",
  lua: readLuaFile(new URL("../../lua/decide-schedule-ticks-1.lua", import.meta.url)),
  numberOfKeys: 1,
};

const calls = new WeakMap<RedisConnection, LuaCall>();

function decideOn(redis: RedisConnection): LuaCall {
  let call = calls.get(redis);
  if (call === undefined) {
    call = defineLuaCommand(redis, DECIDE);
    calls.set(redis, call);
  }
  return call;
}

/** The schedule's newest tick fired before the ticks to decide, as the caller looked it up. */
export interface PreviousFire {
  /** The tick (ms). */
  tick: number;
  /** Whether its run is running, or still being fired. */
  running: boolean;
}

/** What deciding made of the ticks. */
export type TickDecision =
  | {
      decided: true;
      /** Per tick, in order: whether to fire it. */
      fire: boolean[];
      /** Whether this caller, alone of all, must cancel the previous fire's run. */
      cancelPrevious: boolean;
    }
  | {
      decided: false;
      /** The tick to look up before deciding again (undefined: the schedule never fired), and when it was decided (ms). */
      previous?: { tick: number; decidedAt: number };
    };

function malformed(reply: unknown): ErrandError {
  return new ErrandError(
    "internal",
    `the decide-schedule-ticks script returned ${JSON.stringify(reply)}`,
  );
}

/**
 * Decides `ticks` (oldest first) of the schedule whose decided ticks are at
 * `key`, given what the caller found of `previous` (none: the schedule
 * never fired, as far as it knows); `decided: false` when `previous` is not
 * the schedule's newest fire before them any more.
 */
export async function decideTicks(
  redis: RedisConnection,
  key: string,
  overlap: "skip" | "cancel-previous",
  previous: PreviousFire | undefined,
  ticks: readonly number[],
  now: number,
): Promise<TickDecision> {
  const reply = await decideOn(redis)(
    [key],
    [
      overlap,
      previous === undefined ? "" : String(previous.tick),
      previous?.running ? "1" : "0",
      now,
      ...ticks.map(String),
    ],
  );
  if (!Array.isArray(reply)) throw malformed(reply);
  if (reply[0] === 1) {
    const [, tick, decidedAt] = reply as [number, string, string];
    return tick === ""
      ? { decided: false }
      : { decided: false, previous: { tick: Number(tick), decidedAt: Number(decidedAt) } };
  }
  const verdicts = reply.slice(2) as string[];
  if (verdicts.length !== ticks.length) throw malformed(reply);
  return {
    decided: true,
    fire: verdicts.map((verdict) => verdict === "fire"),
    cancelPrevious: reply[1] === 1,
  };
}
