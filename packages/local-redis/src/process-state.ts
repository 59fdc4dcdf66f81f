/** Whether a process we did not spawn directly (a daemon) is still running. */
import { readFileSync } from "node:fs";
import { waitUntil } from "./wait-until.js";

/**
 * True while `pid` is a running process. A zombie (exited but not yet reaped,
 * which happens to daemons when PID 1 does not reap) counts as gone.
 */
export function isProcessRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch {
    // No procfs (macOS): signal 0 succeeding is all we can know.
    return true;
  }
}

/** Resolves `true` once `pid` is gone, `false` if it is still running after `timeoutMs`. */
export async function waitForProcessExit(pid: number, timeoutMs: number): Promise<boolean> {
  const gone = await waitUntil(() => (isProcessRunning(pid) ? undefined : true), { timeoutMs });
  return gone === true;
}
