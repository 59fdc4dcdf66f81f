/**
 * Spawning the built `errand` the way a user runs it, and reading what it
 * printed and how it exited.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { shellCommand } from "../shell-quote.js";

/** The built executable. */
export const ERRAND_BIN = fileURLToPath(new URL("../../dist/main.js", import.meta.url));

/** How a run of `errand` ended. */
export interface ErrandOutcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Options of {@link runErrand}. */
export interface RunErrandOptions {
  /** Variables added to the environment (`undefined` removes one). */
  env?: Record<string, string | undefined>;
  /** The working directory (default: this process's). */
  cwd?: string;
  /**
   * Run on a pseudo-terminal, so that stdout and stderr are a TTY (through
   * util-linux's `script`). What it printed then arrives in `stdout`, stderr
   * included, with `\r\n` line ends.
   */
  terminal?: boolean;
}

/** The environment of a spawned `errand`: ours, without a Redis, a model server or a dashboard unless given. */
function childEnv(extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    REDIS_URL: undefined,
    OPENAI_API_KEY: undefined,
    OPENAI_BASE_URL: undefined,
    ERRAND_MODEL: undefined,
    ANTHROPIC_API_KEY: undefined,
    ANTHROPIC_BASE_URL: undefined,
    GOOGLE_GENERATIVE_AI_API_KEY: undefined,
    GOOGLE_GENERATIVE_AI_BASE_URL: undefined,
    ERRAND_DASHBOARD_URL: undefined,
  };
  for (const [name, value] of Object.entries(extra)) env[name] = value;
  for (const name of Object.keys(env)) if (env[name] === undefined) delete env[name];
  return env;
}

/** Runs `errand <args>` to its end. */
export function runErrand(
  args: readonly string[],
  options: RunErrandOptions = {},
): Promise<ErrandOutcome> {
  return new Promise((resolve, reject) => {
    const command = [process.execPath, ERRAND_BIN, ...args];
    const [file, argv]: [string, string[]] = options.terminal
      ? ["script", ["--quiet", "--return", "--command", shellCommand(command), "/dev/null"]]
      : [process.execPath, command.slice(1)];
    const child = spawn(file, argv, {
      cwd: options.cwd ?? process.cwd(),
      env: childEnv(options.env ?? {}),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}
