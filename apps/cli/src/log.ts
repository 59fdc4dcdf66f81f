/**
 * The JSON log lines of the commands that print for people on stdout
 * (`up`, `demo`, `dashboard`): they go to stderr, from a level the command
 * picks unless `ERRAND_LOG_LEVEL` says otherwise.
 */
import { createLogger } from "@errand/engine/ops";
import type { CliIO } from "./io.js";

/** The levels a command logs from when `ERRAND_LOG_LEVEL` is not set. */
export type CliLogLevel = "info" | "warn" | "silent";

/** A pino logger writing to `io.stderr` from `ERRAND_LOG_LEVEL`, else `level`. */
export function stderrLogger(
  io: CliIO,
  level: CliLogLevel,
  name?: string,
): ReturnType<typeof createLogger> {
  return createLogger({
    level: (io.env.ERRAND_LOG_LEVEL as CliLogLevel | undefined) ?? level,
    destination: { write: (line) => io.stderr.write(line) },
    ...(name === undefined ? {} : { name }),
  });
}
