/**
 * The safety net: servers a test forgot to stop are killed, and their
 * directories removed, when the test process exits.
 */
import { rmSync } from "node:fs";
import type { RedisProcess } from "./redis-process.js";

const running = new Map<RedisProcess, string>();
let hookInstalled = false;

function cleanUpAtExit(): void {
  for (const [server, dir] of running) {
    const pid = server.readPid();
    try {
      if (pid !== undefined) process.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
    rmSync(dir, { recursive: true, force: true });
  }
  running.clear();
}

/** Remembers `server` (living in `dir`) until {@link forgetAtExit}. */
export function cleanUpAtExitLater(server: RedisProcess, dir: string): void {
  running.set(server, dir);
  if (!hookInstalled) {
    hookInstalled = true;
    process.once("exit", cleanUpAtExit);
  }
}

/** Forgets a server that was stopped properly. */
export function forgetAtExit(server: RedisProcess): void {
  running.delete(server);
}
