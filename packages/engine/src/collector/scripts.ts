/**
 * The collector's Lua scripts, read once from the package's `lua/` folder
 * (beside `src/` and `dist/` alike) and defined on a client as ioredis
 * commands (the store's `defineLuaCommand`), so every call is one EVALSHA.
 * Each script's keys share one hash tag, so the scripts run on Redis Cluster
 * too. Each file's header lists its KEYS, ARGV, replies and effects.
 */
import { ErrandError } from "@errand/core";
import { defineLuaCommand, readLuaFile } from "@errand/store";
import type { RedisConnection } from "../connection.js";

function readScript(file: string): string {
  return readLuaFile(new URL(`../../lua/${file}`, import.meta.url));
}

const SCRIPTS = {
  indexRun: { command: "errandIndexRun", lua: readScript("index-run-9.lua"), numberOfKeys: 9 },
  appendInbox: {
    command: "errandAppendInbox",
    lua: readScript("append-inbox-2.lua"),
    numberOfKeys: 2,
  },
  deadLetter: {
    command: "errandDeadLetter",
    lua: readScript("dead-letter-2.lua"),
    numberOfKeys: 2,
  },
} as const;

type ScriptName = keyof typeof SCRIPTS;

/** Calls one script with its keys and arguments; resolves with its integer reply. */
export type CollectorScriptCall = (
  keys: readonly string[],
  args: readonly (string | number)[],
) => Promise<number>;

/** The collector's scripts, bound to one client. */
export type CollectorScripts = Record<ScriptName, CollectorScriptCall>;

/** Defines the collector's scripts on `redis` (idempotent) and returns them as functions. */
export function defineCollectorScripts(redis: RedisConnection): CollectorScripts {
  const bind = (name: ScriptName): CollectorScriptCall => {
    const call = defineLuaCommand(redis, SCRIPTS[name]);
    return async (keys, args) => {
      const reply = await call(keys, args);
      if (typeof reply !== "number") {
        throw new ErrandError("internal", `the ${name} script returned ${JSON.stringify(reply)}`);
      }
      return reply;
    };
  };
  return {
    indexRun: bind("indexRun"),
    appendInbox: bind("appendInbox"),
    deadLetter: bind("deadLetter"),
  };
}
