/**
 * The ACL user covers every command a Lua script of errand or of BullMQ can
 * run, and none of errand's scripts needs a `@dangerous` command: a script
 * refused one of its commands fails where that command is, possibly after
 * its writes. Command names are read from the scripts' text (every quoted
 * upper-case word the server knows as a command, so a command chosen at run
 * time, like BullMQ's `SSCAN` or `HSCAN`, counts too).
 */
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect } from "vitest";
import { redisTest as it } from "../test-support/engine-test.js";
import { ACL_COMMANDS, redisAclConfig, redisAclRules } from "./redis-acl.js";

const PACKAGES_DIR = fileURLToPath(new URL("../../../", import.meta.url));

/** The Lua source of every script under `packages/<name>/lua/`, by file. */
function errandScripts(): Map<string, string> {
  const scripts = new Map<string, string>();
  for (const name of readdirSync(PACKAGES_DIR)) {
    const dir = join(PACKAGES_DIR, name, "lua");
    let files: string[];
    try {
      files = readdirSync(dir).filter((file) => file.endsWith(".lua"));
    } catch {
      continue;
    }
    for (const file of files)
      scripts.set(`${name}/lua/${file}`, readFileSync(join(dir, file), "utf8"));
  }
  return scripts;
}

/** BullMQ's scripts as it ships them, includes inlined (`dist/cjs/scripts/*.js`). */
function bullmqScripts(): string[] {
  const dir = join(dirname(createRequire(import.meta.url).resolve("bullmq")), "scripts");
  return readdirSync(dir)
    .filter((file) => file.endsWith(".js") && file !== "index.js")
    .map((file) => readFileSync(join(dir, file), "utf8"));
}

let known: Set<string>;
let dangerous: Set<string>;

it.beforeAll(async ({ engineRedis: { redis } }) => {
  known = new Set(((await redis.command("LIST")) as string[]).map((name) => name.toLowerCase()));
  dangerous = new Set((await redis.acl("CAT", "dangerous")) as string[]);
});

/** The commands a script's text names: quoted upper-case words the server knows. */
function commandsIn(text: string): Set<string> {
  const words = [...text.matchAll(/["']([A-Z]+)\\?["']/g)].map(([, word]) => word!.toLowerCase());
  return new Set(words.filter((word) => known.has(word)));
}

describe("the errand ACL user", () => {
  it("is allowed every command of errand's scripts, none of which is @dangerous", () => {
    const scripts = errandScripts();
    expect([...scripts.keys()]).toEqual(
      expect.arrayContaining(["store/lua/append-11.lua", "engine/lua/dead-letter-2.lua"]),
    );
    for (const [file, lua] of scripts) {
      const commands = [...commandsIn(lua)];
      expect(commands.length, file).toBeGreaterThan(0);
      expect(
        commands.filter((command) => !ACL_COMMANDS.includes(command)),
        file,
      ).toEqual([]);
      expect(
        commands.filter((command) => dangerous.has(command)),
        file,
      ).toEqual([]);
    }
  });

  it("is allowed every command of BullMQ's scripts", () => {
    const scripts = bullmqScripts();
    expect(scripts.length).toBeGreaterThan(40);
    const needed = new Set(scripts.flatMap((text) => [...commandsIn(text)]));
    expect([...needed].filter((command) => !ACL_COMMANDS.includes(command))).toEqual([]);
  });

  it("runs no @dangerous command but INFO, and every command it names exists", () => {
    const allowed = ACL_COMMANDS.filter((command) => dangerous.has(command));
    expect(allowed).toEqual(["info"]);
    const unknown = ACL_COMMANDS.filter((command) => !known.has(command.split("|")[0]!));
    expect(unknown).toEqual([]);
  });

  it("reaches only its prefix's keys and channels, a glob character in the prefix taken literally", () => {
    expect(redisAclRules("app*1").slice(0, 4)).toEqual(["reset", "~app\\*1:*", "&app\\*1:*", "on"]);
    const config = redisAclConfig({ prefix: "billing", user: "billing-errand" });
    expect(config).toMatch(
      /^user billing-errand reset on ><password> ~billing:\* &billing:\* \+bzpopmin \+client\|setname /m,
    );
  });
});
