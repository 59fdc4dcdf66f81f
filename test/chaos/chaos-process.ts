/**
 * One chaos child process: a TypeScript entry run by `node --import tsx` with
 * the `@errand/source` condition, whose stdout JSON lines are counted by
 * message, so the harness waits for lines instead of sleeping.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { ErrandError } from "@errand/core";

/** A running chaos process. */
export interface ChaosProcess {
  readonly name: string;
  /** The workerId of a worker process (its `WORKER_ID`), undefined for others. */
  readonly workerId: string | undefined;
  readonly child: ChildProcess;
  /** How many lines it logged with each `msg` so far. */
  readonly messageCounts: Map<string, number>;
  /** Resolves once it logged a line with `msg`; rejects when it exits first or after `timeoutMs`. */
  waitForMessage(msg: string, timeoutMs?: number): Promise<void>;
  /** Whether the process is still running. */
  alive(): boolean;
  /** Sends `signal`; resolves once the process exited (for SIGKILL/SIGTERM) or at once (others). */
  signal(signal: NodeJS.Signals): Promise<void>;
}

const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** The path of an entry file in this folder. */
export function chaosEntry(file: string): string {
  return fileURLToPath(new URL(file, import.meta.url));
}

/** Starts `entry` with `env` added to the environment; its stderr goes to ours, line by line under its name. */
export function startChaosProcess(
  name: string,
  entry: string,
  env: Record<string, string>,
): ChaosProcess {
  const child = spawn(process.execPath, ["--import", "tsx", "--conditions=@errand/source", entry], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  // Its stderr goes to ours, each line marked with its name, so a complaint says who made it.
  createInterface({ input: child.stderr! }).on("line", (text) =>
    process.stderr.write(`[${name}] ${text}\n`),
  );
  const messageCounts = new Map<string, number>();
  const waiters = new Set<() => void>();
  createInterface({ input: child.stdout! }).on("line", (text) => {
    let msg = text;
    try {
      msg = String((JSON.parse(text) as { msg?: unknown }).msg ?? text);
    } catch {
      // a line that is not JSON counts by its text
    }
    messageCounts.set(msg, (messageCounts.get(msg) ?? 0) + 1);
    for (const wake of waiters) wake();
  });
  const exited = once(child, "exit");
  const alive = () => child.exitCode === null && child.signalCode === null;
  return {
    name,
    workerId: env.WORKER_ID,
    child,
    messageCounts,
    alive,
    waitForMessage(msg, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const finish = (error?: Error) => {
          waiters.delete(check);
          clearTimeout(timer);
          child.off("exit", onExit);
          if (error) reject(error);
          else resolve();
        };
        const check = () => {
          if (messageCounts.has(msg)) finish();
        };
        const onExit = () =>
          finish(new ErrandError("internal", `${name} exited before logging "${msg}"`));
        const timer = setTimeout(
          () => finish(new ErrandError("internal", `${name} never logged "${msg}"`)),
          timeoutMs,
        );
        waiters.add(check);
        child.once("exit", onExit);
        check();
      });
    },
    async signal(signal) {
      if (!alive()) return;
      child.kill(signal);
      if (signal === "SIGKILL" || signal === "SIGTERM") await exited;
    },
  };
}
