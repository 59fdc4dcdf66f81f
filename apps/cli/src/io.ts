/**
 * The world a command talks to: its output streams, environment and working
 * directory. `main.ts` passes the process's; tests may pass their own.
 */

/** A stream a command writes to, with what a terminal tells about itself. */
export interface OutputStream {
  write(text: string): unknown;
  /** True when the stream is a terminal (progress then updates one line). */
  readonly isTTY?: boolean;
  /** The terminal's width in characters, when known. */
  readonly columns?: number;
}

/** What every command receives. */
export interface CliIO {
  readonly stdout: OutputStream;
  readonly stderr: OutputStream;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Where relative paths (`@file`, `--agents`, `--from-file`) are resolved from. */
  readonly cwd: string;
}

/** The IO of the running process. */
export function processIO(): CliIO {
  return { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() };
}
