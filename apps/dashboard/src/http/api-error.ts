/**
 * Errors as the API answers them: `{ error: { code, message, retryable } }`
 * with an HTTP status. An `ErrandError` keeps its code (a refused request is
 * 400, a missing run 404, an unreachable Redis 503); the dashboard's own
 * refusals — a missing token, a foreign origin, an action in read-only mode
 * — carry codes of their own.
 */
import { type ErrorCode, isErrandError } from "@errand/core";
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";

/** The codes of the dashboard's own refusals. */
export type DashboardRefusal =
  | "unauthorized"
  | "forbidden_host"
  | "csrf_refused"
  | "read_only"
  | "invalid_request"
  | "payload_too_large"
  | "busy"
  | "not_found";

/** The JSON body of an error answer. */
export interface ApiErrorBody {
  error: { code: string; message: string; retryable: boolean };
}

const STATUS_OF_CODE: Partial<Record<ErrorCode, ContentfulStatusCode>> = {
  invalid_spec: 400,
  unknown_agent: 400,
  unsupported_schema: 400,
  schema_not_supported: 400,
  settings_not_supported: 400,
  input_too_large: 413,
  invalid_input: 400,
  limit_exceeded: 400,
  not_found: 404,
  invalid_answer: 400,
  waitpoint_answered: 409,
  waitpoint_timeout: 409,
  run_settled: 409,
  redis_unavailable: 503,
  redis_out_of_memory: 503,
};

/** An error answer with `status`. */
export function apiError(
  c: Context,
  status: ContentfulStatusCode,
  code: DashboardRefusal | ErrorCode,
  message: string,
  retryable = false,
): Response {
  const body: ApiErrorBody = { error: { code, message, retryable } };
  return c.json(body, status);
}

/** The answer to an error thrown by a route: its own code for an `ErrandError`, else 500 `internal`. */
export function answerError(c: Context, error: unknown): Response {
  if (isErrandError(error)) {
    const status = STATUS_OF_CODE[error.code] ?? 500;
    return apiError(c, status, error.code, error.message, error.retryable);
  }
  return apiError(c, 500, "internal", "the dashboard failed to answer; see its log");
}
