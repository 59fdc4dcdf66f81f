import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { waitForProcessExit } from "./process-state.js";
import { answersPing } from "./resp.js";
import { type OwnedRedis, PACKAGE_DIR, redisOwnerArgs } from "./test-support/redis-owner.js";

describe("the exit safety net", () => {
  it("kills a server the test forgot to stop and removes its directory", async () => {
    // A test process that exits without stopping its server.
    const { stdout } = await promisify(execFile)(
      process.execPath,
      redisOwnerArgs("process.exit(0)"),
      {
        cwd: PACKAGE_DIR,
      },
    );
    const { dir, pid, port } = JSON.parse(stdout.trim().split("\n").at(-1) ?? "") as OwnedRedis;
    expect(pid).toBeGreaterThan(0);
    expect(await waitForProcessExit(pid, 10_000)).toBe(true);
    expect(existsSync(dir)).toBe(false);
    expect(await answersPing({ host: "127.0.0.1", port })).toBe(false);
  }, 30_000);
});
