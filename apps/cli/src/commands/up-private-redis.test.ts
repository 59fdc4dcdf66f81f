/**
 * The private Redis of `errand up` never outlives it: neither a closed
 * terminal (SIGHUP to its process group, a clean stop) nor a SIGKILL of the
 * CLI alone (its watchdog) leaves a redis-server or its folder behind.
 */
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  printedRedisUrl,
  privateRedisAt,
  waitUntilRemoved,
} from "../test-support/private-redis.js";
import { type ErrandProcess, type ProcessExit, spawnErrand } from "../test-support/processes.js";

/** `errand up --no-dashboard` on a private Redis, in a process group of its own. */
function startUp(): Promise<ErrandProcess> {
  return spawnErrand(["up", "--no-dashboard"], { REDIS_URL: "" }, "Ctrl-C to stop.", {
    detached: true,
  });
}

const ENDINGS: { how: string; end(up: ErrandProcess): void; exit: ProcessExit }[] = [
  {
    how: "its terminal closes (SIGHUP to its process group)",
    end: (up) => process.kill(-(up.child.pid ?? 0), "SIGHUP"),
    exit: { code: 0, signal: null },
  },
  {
    how: "it is SIGKILLed alone",
    end: (up) => up.child.kill("SIGKILL"),
    exit: { code: null, signal: "SIGKILL" },
  },
];

describe("errand up's private Redis", () => {
  it.each(ENDINGS)("is gone with its folder once $how", async ({ end, exit }) => {
    const up = await startUp();
    try {
      const url = printedRedisUrl(up.output());
      expect(url).toMatch(/^redis:\/\/127\.0\.0\.1:\d+$/);
      const { dir, pid } = await privateRedisAt(url!);
      expect(pid).toBeGreaterThan(0);
      expect(existsSync(dir)).toBe(true);
      end(up);
      expect(await up.exited()).toEqual(exit);
      expect(await waitUntilRemoved(url!, dir)).toBe(true);
    } finally {
      await up.stop("SIGKILL");
    }
  });
});
