/**
 * Lua scripts as ioredis commands: a script file read once, defined on a
 * client with `defineCommand` so that every call is one EVALSHA (EVAL only
 * when the server has not seen it yet). Works on a `Redis` and a `Cluster`
 * alike when a script's keys share one hash tag. Used by the store's scripts
 * and by other packages' (the engine's collector). A script's file is named
 * `<verb>-<numKeys>.lua`, as BullMQ's are, with `n` for the number of keys of
 * a script whose calls pass any number of them (its header says how many); an
 * optional last key counts in the number (`append-11.lua` takes 10 or 11).
 */
import { readFileSync } from "node:fs";
import type { Cluster, Redis } from "ioredis";

/** A Redis client the store works with: a single server or a Cluster. */
export type RedisClient = Redis | Cluster;

/** A Lua script and the ioredis command it becomes. */
export interface LuaScript {
  /** The command name on the client; unique per script. */
  command: string;
  /** The script's source. */
  lua: string;
  /**
   * How many of a call's leading arguments are keys, or `"variable"` for a
   * script whose calls pass any number of keys.
   */
  numberOfKeys: number | "variable";
}

/** Calls a defined script with its keys, then its arguments; resolves with the raw reply. */
export type LuaCall = (
  keys: readonly string[],
  args: readonly (string | number)[],
) => Promise<unknown>;

/**
 * A defined script's ioredis command. ioredis flattens a command's arguments
 * (one level of arrays), so the keys and the arguments are passed as the
 * caller's own arrays, not spread into copies.
 */
type CustomCommand = (
  ...keysAndArgs: (string | number | readonly (string | number)[])[]
) => Promise<unknown>;

/** Reads a script file, e.g. `new URL("../lua/append-11.lua", import.meta.url)`. */
export function readLuaFile(url: URL): string {
  return readFileSync(url, "utf8");
}

/** Defines `script` on `redis` (idempotent) and returns the function that calls it. */
export function defineLuaCommand(redis: RedisClient, script: LuaScript): LuaCall {
  const { command, lua, numberOfKeys } = script;
  if (numberOfKeys === "variable") {
    redis.defineCommand(command, { lua });
    const call = (redis as unknown as Record<string, CustomCommand>)[command]!.bind(redis);
    return (keys, args) => call(keys.length, keys, args);
  }
  redis.defineCommand(command, { lua, numberOfKeys });
  const call = (redis as unknown as Record<string, CustomCommand>)[command]!.bind(redis);
  return (keys, args) => call(keys, args);
}
