import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitForProcessExit } from "./process-state.js";
import type { RedisServer } from "./redis-server.js";
import { answersPing } from "./resp.js";
import { startRedis } from "./start-redis.js";
import { type OwnedRedis, PACKAGE_DIR, redisOwnerArgs } from "./test-support/redis-owner.js";
import { waitUntil } from "./wait-until.js";

type OwnedServer = OwnedRedis & { owner: ChildProcess };

/** Spawns an owner that waits to be killed, and resolves once it reported its server. */
async function startDoomedOwner(): Promise<OwnedServer> {
  const owner = spawn(process.execPath, redisOwnerArgs("setInterval(() => {}, 60_000)"), {
    cwd: PACKAGE_DIR,
    stdio: ["ignore", "pipe", "inherit"],
  });
  let output = "";
  owner.stdout?.setEncoding("utf8");
  const reported = new Promise<string>((resolve, reject) => {
    owner.stdout?.on("data", (chunk: string) => {
      output += chunk;
      if (output.includes("\n")) resolve(output.split("\n")[0] ?? "");
    });
    owner.once("exit", (code) => reject(new Error(`the owner exited with ${code}: ${output}`)));
  });
  const line = await reported;
  return { owner, ...(JSON.parse(line) as OwnedRedis) };
}

describe("the watchdog of a server whose owner dies without cleaning up", () => {
  let bystander: RedisServer;
  beforeAll(async () => {
    bystander = await startRedis();
  });
  afterAll(async () => {
    await bystander?.stop();
  });

  it.each(["SIGKILL", "SIGHUP"] as const)(
    "kills the server and removes its directory once the owner dies of %s",
    async (signal) => {
      const { owner, dir, pid, port } = await startDoomedOwner();
      expect(existsSync(dir)).toBe(true);
      expect(await answersPing({ host: "127.0.0.1", port })).toBe(true);
      const exited = once(owner, "exit");
      owner.kill(signal);
      expect((await exited)[1]).toBe(signal);
      expect(await waitForProcessExit(pid, 15_000)).toBe(true);
      expect(
        await waitUntil(() => (existsSync(dir) ? undefined : true), { timeoutMs: 15_000 }),
      ).toBe(true);
      expect(await answersPing({ host: "127.0.0.1", port })).toBe(false);
      expect(await answersPing(bystander)).toBe(true);
    },
    30_000,
  );
});
