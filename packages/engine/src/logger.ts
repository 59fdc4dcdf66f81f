/**
 * Logging: pino, one child logger per run (`runId`, `agent`, `attempt`), with
 * run inputs, outputs, tool arguments and results, and secrets redacted by
 * default, so a log line never leaks what a run was given or produced.
 *
 * Secrets are recognised as everywhere else in errand (core's `isSecretKey`:
 * `secretKey`, `aws_secret_access_key`, `passwd`, `cookie`, … at any depth),
 * and every line, messages included, then passes through core's
 * `redactSecretText`: a tool's error message quoting `Bearer …`, an `sk-…`
 * key or `password=…` is logged with the secret hidden.
 */
import { redactSecrets, redactSecretText } from "@errand/core";
import type { Logger } from "@errand/runtime";
import { lazyChild } from "@errand/runtime/ops";
import {
  type DestinationStream,
  type LevelWithSilent,
  type Logger as PinoLogger,
  pino,
} from "pino";

/** The run data every engine log line hides, at any depth, besides secrets. */
export const RUN_DATA_KEYS = ["input", "output", "args", "result"] as const;

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
    formatters: {
      log: (fields: Record<string, unknown>) =>
        redactSecrets(fields, { alsoKeys: RUN_DATA_KEYS }) as Record<string, unknown>,
    },
    hooks: { streamWrite: redactSecretText },
  };
  return options.destination ? pino(settings, options.destination) : pino(settings);
}

/** Who a run's log lines are about. */
export interface RunLogBindings {
  runId: string;
  agent: string;
  attempt: number;
}

/** The child logger of one run attempt, made once it logs a line its level writes (runtime's `lazyChild`). */
export function runLogger(logger: Logger, bindings: RunLogBindings): Logger {
  return lazyChild(logger, { ...bindings });
}
