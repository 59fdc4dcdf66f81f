/**
 * The store's Lua scripts, read once from `lua/` and defined on each client
 * as ioredis commands (see `lua-command.ts`). Every script's keys share one
 * hash tag, so the call goes to the node that owns that slot on a Cluster.
 */
import { ErrandError } from "@errand/core";
import type { ScriptReply } from "./errors.js";
import { defineLuaCommand, type RedisClient, readLuaFile } from "./lua-command.js";

export type { RedisClient } from "./lua-command.js";

/** Reads a script beside `src/` and `dist/` alike. */
function readScript(file: string): string {
  return readLuaFile(new URL(`../lua/${file}`, import.meta.url));
}

/** Every script: the ioredis command name it gets, its file, its number of keys. */
const SCRIPTS = {
  append: { command: "errandAppend", lua: readScript("append-11.lua"), numberOfKeys: "variable" },
  putBlob: { command: "errandPutBlob", lua: readScript("put-blob-2.lua"), numberOfKeys: 2 },
} as const;

type ScriptName = keyof typeof SCRIPTS;

/** Calls a store script: its keys, then its arguments; resolves with its checked reply. */
type ScriptCall = (
  keys: readonly string[],
  args: readonly (string | number)[],
) => Promise<ScriptReply>;

/** The store's scripts, bound to one client. */
export type StoreScripts = Record<ScriptName, ScriptCall>;

/**
 * `raw` as a script reply, when it is one: `[code, seq, index]` (ioredis' own
 * array, not a copy), `[code, seq, index, runId]` for a duplicate, or
 * `put-blob-2.lua`'s `[code, n]` with index 0.
 */
function toReply(name: ScriptName, raw: unknown): ScriptReply {
  if (Array.isArray(raw) && Number.isInteger(raw[0]) && typeof raw[1] === "number") {
    if (raw.length === 2) return [raw[0], raw[1], 0];
    if (
      typeof raw[2] === "number" &&
      (raw.length === 3 || (raw.length === 4 && typeof raw[3] === "string"))
    ) {
      return raw as unknown as ScriptReply;
    }
  }
  throw new ErrandError("internal", `the ${name} script returned ${JSON.stringify(raw)}`);
}

/** Defines the store's scripts on `redis` (idempotent) and returns them as functions. */
export function defineStoreScripts(redis: RedisClient): StoreScripts {
  const bind = (name: ScriptName): ScriptCall => {
    const call = defineLuaCommand(redis, SCRIPTS[name]);
    return async (keys, args) => toReply(name, await call(keys, args));
  };
  return { append: bind("append"), putBlob: bind("putBlob") };
}
