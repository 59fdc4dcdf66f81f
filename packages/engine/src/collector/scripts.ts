/**
 * The collector's own Lua scripts (the store has the one that writes
 * outcomes, `index-runs-n.lua`), read once from the package's `lua/` folder
 * (beside `src/` and `dist/` alike) and defined on a client as ioredis
 * commands (the store's `defineLuaCommand`), so every call is one EVALSHA.
 * Each script's keys share one hash tag, so the scripts run on Redis Cluster
 * too. Each file's header lists its KEYS, ARGV, replies and effects.
 */
import { ErrandError } from "@errand/core";
import { defineLuaCommand, type LuaScript, readLuaFile } from "@errand/store/ops";
import type { RedisConnection } from "../redis/connection.js";

function readScript(file: string): string {
  return readLuaFile(new URL(`../../lua/${file}`, import.meta.url));
}

const SCRIPTS = {
  deadLetter: {
    command: "errandDeadLetter",
    lua: readScript("dead-letter-2.lua"),
    numberOfKeys: 2,
  },
  countChildren: {
    command: "errandCountChildren",
    lua: readScript("count-children-2.lua"),
    numberOfKeys: 2,
  },
} as const satisfies Record<string, LuaScript>;

/** Calls one script with its keys and arguments; resolves with its checked reply. */
type CollectorScriptCall<Reply> = (
  keys: readonly string[],
  args: readonly (string | number)[],
) => Promise<Reply>;

/** The collector's scripts, bound to one client. */
export interface CollectorScripts {
  /** `dead-letter-2.lua`. */
  deadLetter: CollectorScriptCall<number>;
  /** `count-children-2.lua`. */
  countChildren: CollectorScriptCall<number>;
}

const isInteger = (reply: unknown): reply is number => typeof reply === "number";

/** Defines the collector's scripts on `redis` (idempotent) and returns them as functions. */
export function defineCollectorScripts(redis: RedisConnection): CollectorScripts {
  const bind = <Reply>(
    name: keyof typeof SCRIPTS,
    isReply: (reply: unknown) => reply is Reply,
  ): CollectorScriptCall<Reply> => {
    const call = defineLuaCommand(redis, SCRIPTS[name]);
    return async (keys, args) => {
      const reply = await call(keys, args);
      if (!isReply(reply)) {
        throw new ErrandError("internal", `the ${name} script returned ${JSON.stringify(reply)}`);
      }
      return reply;
    };
  };
  return {
    deadLetter: bind("deadLetter", isInteger),
    countChildren: bind("countChildren", isInteger),
  };
}
