import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { waitForProcessExit } from "./process-state.js";
import { answersPing } from "./resp.js";

const packageDir = dirname(dirname(dirname(fileURLToPath(import.meta.url))));

/** A test process that starts a Redis, reports it, and exits without stopping it. */
const forgetfulTest = `
  const { startRedis } = await import(${JSON.stringify(new URL("./start-redis.ts", import.meta.url).href)});
  const { Redis } = await import("ioredis");
  const server = await startRedis();
  const redis = new Redis(server.url);
  const [, dir] = await redis.config("GET", "dir");
  const pid = Number(/process_id:(\\d+)/.exec(await redis.info("server"))[1]);
  redis.disconnect();
  console.log(JSON.stringify({ dir, pid, port: server.port }));
  process.exit(0);
`;

describe("the exit safety net", () => {
  it("kills a server the test forgot to stop and removes its directory", async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        "--conditions=@errand/source",
        "--import",
        "tsx",
        "--input-type=module",
        "-e",
        forgetfulTest,
      ],
      { cwd: packageDir },
    );
    const { dir, pid, port } = JSON.parse(stdout.trim().split("\n").at(-1) ?? "") as {
      dir: string;
      pid: number;
      port: number;
    };
    expect(pid).toBeGreaterThan(0);
    expect(await waitForProcessExit(pid, 10_000)).toBe(true);
    expect(existsSync(dir)).toBe(false);
    expect(await answersPing({ host: "127.0.0.1", port })).toBe(false);
  }, 30_000);
});
