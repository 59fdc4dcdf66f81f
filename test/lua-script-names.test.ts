/**
 * Every Lua script of errand is named `<verb>-<numKeys>.lua`, as BullMQ's
 * are (`n` for a script called with any number of keys), and its number is
 * the highest `KEYS[i]` its header lists.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const PACKAGES_DIR = fileURLToPath(new URL("../packages", import.meta.url));

/** Every `.lua` file under `packages/<name>/lua/`, as `<name>/lua/<file>`, with its text. */
function luaScripts(): { path: string; file: string; lua: string }[] {
  return readdirSync(PACKAGES_DIR).flatMap((name) => {
    const dir = join(PACKAGES_DIR, name, "lua");
    let files: string[];
    try {
      files = readdirSync(dir).filter((file) => file.endsWith(".lua"));
    } catch {
      return [];
    }
    return files.map((file) => ({
      path: `${name}/lua/${file}`,
      file,
      lua: readFileSync(join(dir, file), "utf8"),
    }));
  });
}

/** The highest fixed `KEYS[i]` a script's text names. */
function highestKey(lua: string): number {
  return Math.max(0, ...[...lua.matchAll(/KEYS\[(\d+)\]/g)].map(([, index]) => Number(index)));
}

describe("errand's Lua scripts", () => {
  it("are named <verb>-<numKeys>.lua, the number their keys say", () => {
    const scripts = luaScripts();
    expect(scripts.map(({ path }) => path)).toEqual(
      expect.arrayContaining(["store/lua/append-11.lua", "engine/lua/keep-locks-n.lua"]),
    );
    for (const { path, file, lua } of scripts) {
      const named = /^[a-z]+(?:-[a-z]+)*-(\d+|n)\.lua$/.exec(file);
      expect(named, path).not.toBeNull();
      if (named![1] !== "n") expect(highestKey(lua), path).toBe(Number(named![1]));
    }
  });
});
