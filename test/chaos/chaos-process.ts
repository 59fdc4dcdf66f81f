/**
 * One chaos child process: any command (a TypeScript entry run by
 * `node --import tsx` with the `@errand/source` condition, or a command run
 * in a network namespace), whose stdout JSON lines are kept by message, so the
 * harness waits for lines instead of sleeping.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { ErrandError } from "@errand/core";

/** The fields of one JSON line a process logged (`{ msg }` alone for a line that is not JSON). */
export type LogLine = Readonly<Record<string, unknown>>;

/** A running chaos process. */
export interface ChaosProcess {
  readonly name: string;
  /** The workerId of a worker process (its `WORKER_ID`), undefined for others. */
  readonly workerId: string | undefined;
  readonly child: ChildProcess;
  /** The lines it logged with `msg` so far, in order. */
  linesWith(msg: string): readonly LogLine[];
  /**
   * Resolves with the first line with `msg` (and that `matches`, when given);
   * rejects when the process exits first or after `timeoutMs`.
   */
  waitForMessage(
    msg: string,
    timeoutMs?: number,
    matches?: (line: LogLine) => boolean,
  ): Promise<LogLine>;
  /** Whether the process is still running. */
  alive(): boolean;
  /** Sends `signal`; resolves once the process exited (for SIGKILL/SIGTERM) or at once (others). */
  signal(signal: NodeJS.Signals): Promise<void>;
}

/** The root of the repository: where chaos processes run. */
export const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** The path of an entry file in this folder. */
export function chaosEntry(file: string): string {
  return fileURLToPath(new URL(file, import.meta.url));
}

/** The fields of a line of stdout: its JSON, or its text as `msg`. */
function parseLine(text: string): LogLine {
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === "object" && parsed !== null && "msg" in parsed) {
      return { ...parsed, msg: String(parsed.msg) };
    }
  } catch {
    // a line that is not JSON counts by its text
  }
  return { msg: text };
}

/** Starts TypeScript `entry` with `env` added to the environment (see {@link startLoggedProcess}). */
export function startChaosProcess(
  name: string,
  entry: string,
  env: Record<string, string>,
): ChaosProcess {
  return startLoggedProcess(
    name,
    [process.execPath, "--import", "tsx", "--conditions=@errand/source", entry],
    env,
  );
}

/**
 * Starts `command` (its program first) in the repository's root with `env`
 * added to the environment; its stderr goes to ours, line by line under its name.
 */
export function startLoggedProcess(
  name: string,
  [program, ...args]: readonly [string, ...string[]],
  env: Record<string, string>,
): ChaosProcess {
  const child = spawn(program, args, {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  // Its stderr goes to ours, each line marked with its name, so a complaint says who made it.
  createInterface({ input: child.stderr! }).on("line", (text) =>
    process.stderr.write(`[${name}] ${text}\n`),
  );
  const lines = new Map<string, LogLine[]>();
  const waiters = new Set<() => void>();
  createInterface({ input: child.stdout! }).on("line", (text) => {
    const line = parseLine(text);
    const msg = String(line.msg);
    const logged = lines.get(msg);
    if (logged === undefined) lines.set(msg, [line]);
    else logged.push(line);
    for (const wake of waiters) wake();
  });
  const exited = once(child, "exit");
  const alive = () => child.exitCode === null && child.signalCode === null;
  const linesWith = (msg: string) => lines.get(msg) ?? [];
  return {
    name,
    workerId: env.WORKER_ID,
    child,
    linesWith,
    alive,
    waitForMessage(msg, timeoutMs = 60_000, matches = () => true) {
      return new Promise((resolve, reject) => {
        const finish = (outcome: LogLine | Error) => {
          waiters.delete(check);
          clearTimeout(timer);
          child.off("exit", onExit);
          if (outcome instanceof Error) reject(outcome);
          else resolve(outcome);
        };
        const check = () => {
          const line = linesWith(msg).find(matches);
          if (line !== undefined) finish(line);
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
