/** Running a short-lived command to completion and keeping what it printed. */
import { spawn } from "node:child_process";
import { ErrandError } from "@errand/core";

/** How a command ended: its exit code (null when killed by a signal) and its stdout+stderr. */
export interface CommandOutcome {
  code: number | null;
  output: string;
}

/**
 * Runs `binary` with `args` and resolves when it exits, whatever its code.
 * Rejects with {@link ErrandError} `redis_unavailable` only when it cannot be run at all.
 */
export function runCommand(binary: string, args: readonly string[]): Promise<CommandOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    const keep = (chunk: Buffer) => {
      output += chunk.toString();
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    child.on("error", (error) =>
      reject(new ErrandError("redis_unavailable", `could not run ${binary}`, { cause: error })),
    );
    child.on("close", (code) => resolve({ code, output: output.trim() }));
  });
}
