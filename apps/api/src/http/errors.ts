/**
 * Errors as the API answers them: `{ error: { code, message, retryable,
 * fix?, issues?, runId? } }` with an HTTP status (docs/architecture/http-api.md#errors).
 * An `ErrandError` keeps its code and `retryable`, and the run it names when
 * a refused fire made one all the same (`details.runId`: a run no replica
 * confirmed in time, with `durability: "replicated"`), with the fix that
 * answers that run rather than fire a second one. The API's own refusals (a
 * missing key, a foreign host, a body too large or too deep, a request that
 * does not match the document) carry codes of their own. Nothing else
 * leaves the server: an unexpected error is `500 internal`, logged, its
 * stack never sent.
 */
import { type ErrandError, type ErrorCode, isErrandError } from "@errand/core";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ZodError } from "zod";
import type { ApiError } from "../schemas/responses.js";

/** The codes of the API's own refusals, beside errand's `ErrorCode`s. */
export type ApiRefusal =
  | "unauthorized"
  | "forbidden"
  | "forbidden_host"
  | "invalid_request"
  | "payload_too_large"
  | "rate_limited"
  | "busy"
  | "not_found";

const STATUS_OF_CODE: Partial<Record<string, ContentfulStatusCode>> = {
  invalid_spec: 400,
  unknown_agent: 400,
  unsupported_schema: 400,
  schema_not_supported: 400,
  settings_not_supported: 400,
  invalid_input: 400,
  limit_exceeded: 400,
  invalid_answer: 400,
  input_too_large: 413,
  forbidden: 403,
  not_found: 404,
  waitpoint_answered: 409,
  waitpoint_timeout: 409,
  run_settled: 409,
  agent_version_unavailable: 409,
  redis_unavailable: 503,
  redis_out_of_memory: 503,
};

/** What to change, for the codes whose fix is the same every time. */
const FIX_OF_CODE: Partial<Record<string, string>> = {
  unknown_agent: "GET /v1/agents lists the agents workers run; start a worker that runs this one",
  invalid_spec:
    "correct the request as the message says; GET /v1/openapi.json describes every field",
  invalid_request:
    "correct the request as the message says; GET /v1/openapi.json describes every field",
  invalid_input: "send an input that matches the agent's inputSchema (GET /v1/agents shows it)",
  invalid_answer:
    "send an answer that matches the waitpoint's answerSchema (GET /v1/waitpoints shows it)",
  unauthorized: "send `Authorization: Bearer <key>` with a key `errand keys create` printed",
  forbidden:
    "use a key with the scope, agents and tenant this request needs (`errand keys create --scopes …`)",
  rate_limited: "wait Retry-After seconds, then send the request again",
  busy: "wait Retry-After seconds, then open the stream again",
  redis_unavailable: "send the request again once Redis answers (GET /readyz says when)",
  redis_out_of_memory: "free memory on Redis or raise its maxmemory, then send the request again",
  payload_too_large: "send a smaller body; fire many runs in several batches",
};

/** What to do about a refused fire that made run `runId` all the same. */
function firedRunFix(runId: string): string {
  return `run ${runId} was fired: send the request again with the same Idempotency-Key to confirm it (that answers this run, not a second one); without a key, follow it with GET /v1/runs/${runId} instead, as sending it again fires a second run`;
}

/** An error answer with `status`. */
export function apiError(
  c: Context,
  status: ContentfulStatusCode,
  code: ApiRefusal | ErrorCode,
  message: string,
  options: {
    retryable?: boolean;
    issues?: ApiError["error"]["issues"];
    runId?: string;
    fix?: string;
  } = {},
): Response {
  const fix =
    options.runId === undefined ? (options.fix ?? FIX_OF_CODE[code]) : firedRunFix(options.runId);
  const body: ApiError = {
    error: {
      code,
      message,
      retryable: options.retryable ?? false,
      ...(fix === undefined ? {} : { fix }),
      ...(options.issues === undefined ? {} : { issues: options.issues }),
      ...(options.runId === undefined ? {} : { runId: options.runId }),
    },
  };
  return c.json(body, status);
}

/** `details.issues` of an `ErrandError` (`invalid_input`, `invalid_answer`) as the answer's issues. */
function issuesOf(details: Record<string, unknown> | undefined): ApiError["error"]["issues"] {
  const issues = details?.issues;
  if (!Array.isArray(issues)) return undefined;
  return issues.map((issue) => ({
    path: Array.isArray(issue?.path) ? issue.path.join(".") : String(issue?.path ?? ""),
    message: String(issue?.message ?? issue),
  }));
}

/**
 * The run a refused fire made all the same: the `details.runId` of a
 * retryable refusal (a run no replica confirmed in time, a job not enqueued).
 * A refusal that cannot pass when sent again (`not_found`, `run_settled`)
 * names a run too, but one the request merely asked about: no fix of a fired run.
 */
function firedRunOf(error: ErrandError): string | undefined {
  const runId = error.details?.runId;
  return error.retryable && typeof runId === "string" ? runId : undefined;
}

/** The answer to an error a route threw: its own code for an `ErrandError`, else 500 `internal`. */
export function answerError(c: Context, error: unknown): Response {
  if (isErrandError(error)) {
    const status = STATUS_OF_CODE[error.code] ?? 500;
    const issues = issuesOf(error.details);
    const runId = firedRunOf(error);
    return apiError(c, status, error.code, error.message, {
      retryable: error.retryable,
      ...(issues === undefined ? {} : { issues }),
      ...(runId === undefined ? {} : { runId }),
    });
  }
  // A body sent without `content-type: application/json` (curl's `-d` alone sends a form's).
  if (error instanceof HTTPException && error.status === 415) {
    return apiError(
      c,
      415,
      "invalid_request",
      `the body must be JSON, sent with content-type: application/json, not ${JSON.stringify(c.req.header("content-type") ?? "none")}`,
      { fix: "send the header `content-type: application/json` with the JSON body" },
    );
  }
  // Hono's own refusals of a request (a body that is not JSON): 4xx, said in its words.
  if (error instanceof HTTPException && error.status < 500) {
    return apiError(c, error.status as ContentfulStatusCode, "invalid_request", error.message);
  }
  return apiError(c, 500, "internal", "the API failed to answer; its log says why", {
    retryable: true,
  });
}

/** The 400 answer to a request that does not match its schema. */
export function invalidRequest(c: Context, error: ZodError): Response {
  const issues = error.issues.map((issue) => ({
    path: issue.path.map(String).join(".") || "(request)",
    message: issue.message,
  }));
  const summary = issues.map((issue) => `${issue.path}: ${issue.message}`).join("; ");
  return apiError(c, 400, "invalid_request", `invalid request: ${summary}`.slice(0, 2_000), {
    issues: issues.slice(0, 50),
  });
}
