/**
 * Command lines run the way a user types them: through `sh -c`, as real child
 * processes. A long-lived command (`npx errand worker …`) gets a process group
 * of its own, because `npx` does not pass SIGTERM on to the command it runs:
 * stopping signals the whole group and waits until every process in it has
 * closed its output.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";

/** Where and with what environment a command line runs. */
export interface CommandOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/** A long-lived command line, started by {@link startCommand}. */
export interface StartedCommand {
  /** Everything it printed so far, stdout and stderr interleaved. */
  output(): string;
  /** Sends SIGTERM to its process group and resolves once every process of it has closed its output. */
  stop(): Promise<void>;
}

function spawnShell(command: string, options: CommandOptions, ownGroup: boolean): ChildProcess {
  return spawn("sh", ["-c", command], {
    cwd: options.cwd,
    env: options.env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: ownGroup,
  });
}

/** Collects a child's stdout and stderr, each alone and both interleaved. */
function captureOutput(child: ChildProcess): { stdout(): string; all(): string } {
  let stdout = "";
  let all = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
    all += chunk.toString("utf8");
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    all += chunk.toString("utf8");
  });
  return { stdout: () => stdout, all: () => all };
}

/** How a command line that ran to its end ended, and what it printed. */
export interface CommandResult {
  /** Its exit code (`null` when a signal ended it). */
  code: number | null;
  stdout: string;
  /** stdout and stderr interleaved. */
  output: string;
}

/** Runs `command` to its end, whatever its exit code. */
export async function runCommandToEnd(
  command: string,
  options: CommandOptions,
): Promise<CommandResult> {
  const child = spawnShell(command, options, false);
  const output = captureOutput(child);
  const [code] = (await once(child, "close")) as [number | null];
  return { code, stdout: output.stdout(), output: output.all() };
}

/**
 * Runs `command` to its end and resolves with what it printed; rejects with
 * everything it printed when it exits with a code other than 0.
 */
export async function runCommand(command: string, options: CommandOptions): Promise<CommandResult> {
  const result = await runCommandToEnd(command, options);
  if (result.code !== 0)
    throw new Error(`\`${command}\` exited with ${result.code}:\n${result.output}`);
  return result;
}

/**
 * Starts `command` in a process group of its own and resolves once its
 * output contains `readyText`; rejects with its output when it ends before.
 */
export async function startCommand(
  command: string,
  options: CommandOptions,
  readyText: string,
): Promise<StartedCommand> {
  const child = spawnShell(command, options, true);
  const output = captureOutput(child);
  // Rejects only when the shell could not be spawned: then there is nothing to wait for.
  const closed = once(child, "close");
  const stop = async () => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGTERM");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
    }
    await closed.catch(() => undefined);
  };
  await new Promise<void>((resolve, reject) => {
    const onData = () => {
      if (output.all().includes(readyText)) resolve();
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    closed.then(
      () => reject(new Error(`\`${command}\` ended before it was ready:\n${output.all()}`)),
      reject,
    );
  }).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  return { output: output.all, stop };
}
