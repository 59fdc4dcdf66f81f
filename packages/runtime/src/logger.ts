/**
 * The logger the runtime writes to: the small part of pino's interface it uses,
 * so a pino logger fits as is and this package does not depend on pino.
 */

/** One log method: structured fields first, then an optional message (pino's order). */
type LogMethod = (fields: Record<string, unknown>, message?: string) => void;

/** The levels the runtime logs at. */
export type LogLevel = "debug" | "info" | "warn" | "error";

/** A pino-compatible logger. */
export interface Logger {
  debug: LogMethod;
  info: LogMethod;
  warn: LogMethod;
  error: LogMethod;
  /** A logger that adds `bindings` to every line. */
  child(bindings: Record<string, unknown>): Logger;
  /** Whether lines at `level` are written (pino's); a logger without it is taken to write every level. */
  isLevelEnabled?(level: LogLevel): boolean;
}

const ignore: LogMethod = () => {};

/** A logger that drops everything: the default when none is given. */
export const noopLogger: Logger = {
  debug: ignore,
  info: ignore,
  warn: ignore,
  error: ignore,
  child: () => noopLogger,
};

/**
 * `logger.child(bindings)`, made only when a line is logged at a level
 * `logger` writes (and then once): a run's or a call's logger costs nothing
 * while its lines are dropped (a pino child costs microseconds to make, more
 * than a scripted step). Its own children add their bindings to these, as
 * lazily.
 */
export function lazyChild(logger: Logger, bindings: Record<string, unknown>): Logger {
  return new LazyLogger(logger, () => logger.child(bindings));
}

/**
 * A logger whose lines go to `make()`'s, made on the first line `levels`
 * writes. A class, so that one made per run costs one object and its
 * closure, not a closure per method.
 */
class LazyLogger implements Logger {
  private made: Logger | undefined;

  constructor(
    private readonly levels: Logger,
    private readonly make: () => Logger,
  ) {}

  debug(fields: Record<string, unknown>, message?: string): void {
    this.write("debug", fields, message);
  }

  info(fields: Record<string, unknown>, message?: string): void {
    this.write("info", fields, message);
  }

  warn(fields: Record<string, unknown>, message?: string): void {
    this.write("warn", fields, message);
  }

  error(fields: Record<string, unknown>, message?: string): void {
    this.write("error", fields, message);
  }

  child(bindings: Record<string, unknown>): Logger {
    return new LazyLogger(this.levels, () => this.real().child(bindings));
  }

  isLevelEnabled(level: LogLevel): boolean {
    return this.levels.isLevelEnabled?.(level) ?? true;
  }

  private write(level: LogLevel, fields: Record<string, unknown>, message?: string): void {
    if (this.levels.isLevelEnabled?.(level) === false) return;
    const real = this.real();
    if (message === undefined) real[level](fields);
    else real[level](fields, message);
  }

  private real(): Logger {
    this.made ??= this.make();
    return this.made;
  }
}
