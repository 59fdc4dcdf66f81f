/**
 * Logging: pino, one child logger per run (`runId`, `agent`, `attempt`), with
 * run inputs, outputs, tool arguments and results, and secrets redacted by
 * default, so a log line never leaks what a run was given or produced.
 */
import type { Logger } from "@errand/runtime";
import {
  type DestinationStream,
  type LevelWithSilent,
  type Logger as PinoLogger,
  pino,
} from "pino";

/** What every engine logger censors, at the top level and one level down. */
export const REDACTED_KEYS = [
  "input",
  "output",
  "args",
  "result",
  "apiKey",
  "authorization",
  "password",
  "secret",
  "token",
] as const;

/** The pino `redact` paths for {@link REDACTED_KEYS}. */
export const REDACT_PATHS: string[] = REDACTED_KEYS.flatMap((key) => [key, `*.${key}`]);

/** What a redacted value is replaced with. */
export const REDACTED = "[redacted]";

/** Options of {@link createLogger}. */
export interface CreateLoggerOptions {
  /** Default `ERRAND_LOG_LEVEL`, else `info`. */
  level?: LevelWithSilent;
  /** The `name` on every line. Default `errand`. */
  name?: string;
  /** Where lines go. Default stdout. */
  destination?: DestinationStream;
}

/** A pino logger with the engine's redaction: the default logger of every engine part. */
export function createLogger(options: CreateLoggerOptions = {}): PinoLogger {
  const level = options.level ?? (process.env.ERRAND_LOG_LEVEL as LevelWithSilent) ?? "info";
  const settings = {
    name: options.name ?? "errand",
    level,
    redact: { paths: REDACT_PATHS, censor: REDACTED },
  };
  return options.destination ? pino(settings, options.destination) : pino(settings);
}

/** Who a run's log lines are about. */
export interface RunLogBindings {
  runId: string;
  agent: string;
  attempt: number;
}

/** The child logger of one run attempt. */
export function runLogger(logger: Logger, bindings: RunLogBindings): Logger {
  return logger.child({ ...bindings });
}
