import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitUntil } from "../wait-until.js";
import { waitForProcessExit } from "./process-state.js";
import type { RedisServer } from "./redis-server.js";
import { answersPing } from "./resp.js";
import { startRedis } from "./start-redis.js";

const packageDir = dirname(dirname(dirname(fileURLToPath(import.meta.url))));

/** A process that starts a Redis, reports where it lives, and waits to be killed. */
const doomedOwner = `
  const { startRedis } = await import(${JSON.stringify(new URL("./start-redis.ts", import.meta.url).href)});
  const { Redis } = await import("ioredis");
  const server = await startRedis();
  const redis = new Redis(server.url);
  const [, dir] = await redis.config("GET", "dir");
  const pid = Number(/process_id:(\\d+)/.exec(await redis.info("server"))[1]);
  redis.disconnect();
  console.log(JSON.stringify({ dir, pid, port: server.port }));
  setInterval(() => {}, 60_000);
`;

interface OwnedServer {
  owner: ChildProcess;
  dir: string;
  pid: number;
  port: number;
}

/** Spawns {@link doomedOwner} and resolves once it reported its server. */
async function startDoomedOwner(): Promise<OwnedServer> {
  const owner = spawn(
    process.execPath,
    ["--conditions=@errand/source", "--import", "tsx", "--input-type=module", "-e", doomedOwner],
    { cwd: packageDir, stdio: ["ignore", "pipe", "inherit"] },
  );
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
  return { owner, ...(JSON.parse(line) as Omit<OwnedServer, "owner">) };
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
