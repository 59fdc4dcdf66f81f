/**
 * The logger the runtime writes to: the small part of pino's interface it uses,
 * so a pino logger fits as is and this package does not depend on pino.
 */

/** One log method: structured fields first, then an optional message (pino's order). */
export type LogMethod = (fields: Record<string, unknown>, message?: string) => void;

/** A pino-compatible logger. */
export interface Logger {
  debug: LogMethod;
  info: LogMethod;
  warn: LogMethod;
  error: LogMethod;
  /** A logger that adds `bindings` to every line. */
  child(bindings: Record<string, unknown>): Logger;
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
