/**
 * What `errand` exits with, and the one function that turns an error into
 * an exit code.
 */
import { type ErrorCode, isErrandError } from "@errand/core";

/** Every exit code `errand` uses. */
export const EXIT = {
  /** The command did what was asked and the outcome is a success. */
  ok: 0,
  /** The command ran, but the outcome is a failure (a run failed, doctor found problems, …). */
  failure: 1,
  /** Usage or bad input: a one-line error on stderr, nothing was written. */
  usage: 2,
  /** The environment is in the way (Redis unreachable, no Redis given, a port taken, …). */
  environment: 3,
} as const;

/** One of {@link EXIT}'s values. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The help text's section on exit codes, shared by every command. */
export const EXIT_CODES_HELP = [
  "Exit codes:",
  "  0  success",
  "  1  the command ran but the outcome is a failure (a run failed, doctor found problems)",
  "  2  usage or bad input: a one-line error on stderr, nothing was written",
  "  3  environment: Redis unreachable or not given, or a port to listen on is taken",
].join("\n");

/** Error codes that mean the caller asked for something that cannot be done as asked. */
const USAGE_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  "invalid_spec",
  "unknown_agent",
  "agent_version_unavailable",
  "unsupported_schema",
  "schema_not_supported",
  "settings_not_supported",
  "input_too_large",
  "invalid_input",
  "limit_exceeded",
  "invalid_answer",
]);

/** Node's network error codes that mean a server cannot be reached. */
const UNREACHABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EHOSTUNREACH",
]);

/** The `code` of a Node system error (`ECONNREFUSED`, `EADDRINUSE`, …), if `error` has one. */
export function systemErrorCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null || !("code" in error)) return undefined;
  return typeof error.code === "string" ? error.code : undefined;
}

/** Error codes that mean the environment is in the way. */
const ENVIRONMENT_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  "redis_unavailable",
  "redis_out_of_memory",
  "port_in_use",
]);

/**
 * The exit code for an error that ended a command: `ErrandError`s by their
 * code (refusals of the input → 2, `redis_unavailable`, `redis_out_of_memory`
 * and `port_in_use` → 3, anything else → 1), network errors → 3, every other
 * error → 1.
 */
export function exitCodeFor(error: unknown): ExitCode {
  if (isErrandError(error)) {
    if (USAGE_CODES.has(error.code)) return EXIT.usage;
    if (ENVIRONMENT_CODES.has(error.code)) return EXIT.environment;
    return EXIT.failure;
  }
  const code = systemErrorCode(error);
  if (code !== undefined && UNREACHABLE_CODES.has(code)) return EXIT.environment;
  return EXIT.failure;
}
