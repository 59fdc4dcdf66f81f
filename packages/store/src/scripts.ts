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

function toReply(name: ScriptName, raw: unknown): ScriptReply {
  if (Array.isArray(raw) && raw.slice(0, 3).every((value) => typeof value === "number")) {
    const [code = Number.NaN, seq = 0, index = 0, runId] = raw as [number, number, number, unknown];
    if (Number.isInteger(code) && runId === undefined) return [code, seq, index];
    if (Number.isInteger(code) && typeof runId === "string") return [code, seq, index, runId];
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
