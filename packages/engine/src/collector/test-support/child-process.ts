/**
 * Real child processes for tests that kill a collector or a worker: a
 * TypeScript entry file run by `node --import tsx` with the `@errand/source`
 * condition (so workspace packages resolve to their sources), its stdout
 * read line by line. Test-only: not exported.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";

/**
 * How long a child's line is waited for by default: its start alone compiles
 * its TypeScript sources, which on a loaded 2-core machine has taken over
 * 20 s.
 */
const CHILD_LINE_TIMEOUT_MS = 90_000;

/** A running child process. */
export interface TestProcess {
  child: ChildProcess;
  /** Resolves with the first stdout line (past or future) that `match` accepts. */
  line(match: (line: string) => boolean, timeoutMs?: number): Promise<string>;
  /** Sends `signal` and resolves once the process has exited. */
  kill(signal: NodeJS.Signals): Promise<void>;
}

/** The path of a file beside the module at `moduleUrl`. */
export function besides(moduleUrl: string, file: string): string {
  return fileURLToPath(new URL(file, moduleUrl));
}

/** Starts `entry` (a .ts file) with `args`; its stderr goes to the test's stderr. */
export function startTestProcess(entry: string, args: readonly string[]): TestProcess {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "--conditions=@errand/source", entry, ...args],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const lines: string[] = [];
  const waiters = new Set<() => void>();
  let buffered = "";
  child.stdout?.setEncoding("utf8");
  child.stdout?.on("data", (chunk: string) => {
    buffered += chunk;
    const parts = buffered.split("\n");
    buffered = parts.pop() ?? "";
    lines.push(...parts);
    for (const wake of waiters) wake();
  });
  const exited = once(child, "exit");
  return {
    child,
    line(match, timeoutMs = CHILD_LINE_TIMEOUT_MS) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = lines.find(match);
          if (found === undefined) return false;
          cleanup();
          resolve(found);
          return true;
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(
            new Error(
              `no matching line from ${entry} within ${timeoutMs} ms; got: ${lines.join(" | ")}`,
            ),
          );
        }, timeoutMs);
        const onExit = () => {
          if (check()) return;
          cleanup();
          reject(new Error(`${entry} exited before printing the line; got: ${lines.join(" | ")}`));
        };
        const wake = () => void check();
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(wake);
          child.off("exit", onExit);
        };
        if (check()) return;
        waiters.add(wake);
        child.once("exit", onExit);
      });
    },
    async kill(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}
