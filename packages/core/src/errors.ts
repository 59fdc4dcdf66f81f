/**
 * The one error family of errand. Every error a caller can meet carries a
 * stable snake_case `code` to branch on, a `message` a person can act on, and
 * `retryable`: whether the same call may succeed if made again unchanged.
 */

/** Every stable error code errand uses, in one place. */
const ERROR_CODES = [
  // run outcomes (also the `code` of a `failed` event)
  "no_structured_output",
  "max_steps",
  "timeout",
  "model_error",
  "tool_error",
  "worker_lost",
  "deadline_exceeded",
  "waitpoint_timeout",
  "agent_version_unavailable",
  "budget_exceeded",
  "unrecorded_call",
  "cancelled",
  "internal",
  // refusals before a run starts
  "unknown_agent",
  "unsupported_schema",
  "schema_not_supported",
  "settings_not_supported",
  "input_too_large",
  "invalid_input",
  "invalid_spec",
  "limit_exceeded",
  // the log
  "seq_conflict",
  "seq_gap",
  "run_settled",
  "output_already_recorded",
  "not_found",
  "invalid_event",
  // waitpoints
  "invalid_answer",
  "waitpoint_answered",
  // control
  "parked",
  // access (docs/operations/keys.md)
  "unauthorized",
  "forbidden",
  "rate_limited",
  // environment
  "redis_unavailable",
  "redis_out_of_memory",
  "port_in_use",
] as const;

/** A stable error code: see {@link ERROR_CODES}. */
export type ErrorCode = (typeof ERROR_CODES)[number];

/** Options of {@link ErrandError}. */
export interface ErrandErrorOptions {
  /** Whether repeating the same call unchanged may succeed. Default `false`. */
  retryable?: boolean;
  /** The underlying error, when there is one. */
  cause?: unknown;
  /** Structured detail for machines (validation issues, the conflicting seq, …). */
  details?: Record<string, unknown>;
}

/** The base class of every error errand throws. */
export class ErrandError extends Error {
  override readonly name: string = "ErrandError";
  readonly code: ErrorCode;
  readonly retryable: boolean;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, options: ErrandErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.retryable = options.retryable ?? false;
    this.details = options.details;
  }

  /** The plain `{ code, message, retryable }` shape used in results and tool outputs. */
  toJSON(): { code: ErrorCode; message: string; retryable: boolean } {
    return { code: this.code, message: this.message, retryable: this.retryable };
  }
}

/** True when `value` is an {@link ErrandError} (optionally with the given code). */
export function isErrandError(value: unknown, code?: ErrorCode): value is ErrandError {
  return value instanceof ErrandError && (code === undefined || value.code === code);
}

/**
 * The one `not_found` of a run (or, with `role`, of a parent run) that has no
 * log: it was never fired, or its retention passed.
 */
export function runNotFound(runId: string, role: "run" | "parent run" = "run"): ErrandError {
  return new ErrandError("not_found", `${role} ${runId} does not exist (never fired, or expired)`, {
    details: role === "run" ? { runId } : { parentRunId: runId },
  });
}
