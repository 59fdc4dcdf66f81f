/**
 * Child processes of the bench: real Node processes running one of the
 * bench's entry files with orders given as JSON in their first argument,
 * telling the bench how they are doing in lines on their standard output
 * (`ready <ms>`, …). From the built package they run the built entry; from
 * the sources (tests) the TypeScript one through tsx.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { ErrandError } from "@errand/core";

const FROM_SOURCE = import.meta.url.endsWith(".ts");
const NODE_ARGS = FROM_SOURCE ? ["--import", "tsx", "--conditions=@errand/source"] : [];
const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));

/** The longest a child may take to print a line the bench waits for. */
const LINE_TIMEOUT_MS = 60_000;

/** A running child, the lines it printed so far, and its exit code once it exits. */
export interface BenchChild {
  process: ChildProcess;
  lines: string[];
  exited: Promise<number | null>;
}

/**
 * The entry `name` (without extension) next to the module at `moduleUrl`,
 * built or from the sources as the bench runs.
 */
export function benchEntry(name: string, moduleUrl: string): string {
  return fileURLToPath(new URL(`./${name}.${FROM_SOURCE ? "ts" : "js"}`, moduleUrl));
}

/**
 * Starts `entry` with `orders` as JSON in its first argument and `redisUrl`
 * as its `REDIS_URL`; its standard input is a pipe the bench may write to.
 */
export function spawnBenchChild(entry: string, orders: unknown, redisUrl: string): BenchChild {
  const child = spawn(process.execPath, [...NODE_ARGS, entry, JSON.stringify(orders)], {
    cwd: PACKAGE_DIR,
    env: { ...process.env, REDIS_URL: redisUrl },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const lines: string[] = [];
  createInterface({ input: child.stdout! }).on("line", (line) => lines.push(line));
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  return { process: child, lines, exited };
}

/**
 * Resolves with what follows `word` in the first line of `child` that
 * starts with it; rejects when the child exits first or after the timeout,
 * naming `what` it did not do.
 */
export async function lineAfter(child: BenchChild, word: string, what: string): Promise<string> {
  const deadline = Date.now() + LINE_TIMEOUT_MS;
  let ended = false;
  void child.exited.then(() => {
    ended = true;
  });
  for (;;) {
    const line = child.lines.find((printed) => printed.startsWith(`${word} `));
    if (line !== undefined) return line.slice(word.length + 1);
    if (ended || Date.now() > deadline) {
      throw new ErrandError("internal", `a bench child process did not ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
