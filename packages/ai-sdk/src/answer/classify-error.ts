/**
 * What an AI SDK model threw, as errand's runtime retries or reports it. The
 * AI SDK's errors are recognised by their names (`AI_APICallError`, …), not
 * by class, so models built on either version of `@ai-sdk/provider` are read
 * alike:
 *
 * - an HTTP failure (`AI_APICallError` with a status): retryable for 408,
 *   409, 429 and 5xx (Anthropic's 529 "overloaded" included), with the
 *   `retry-after` the server sent; not retryable for any other 4xx;
 * - an answer the provider package could not parse (a 2xx `APICallError`,
 *   `AI_JSONParseError`, `AI_TypeValidationError`): a non-retryable
 *   malformed answer naming the fields its schema refused;
 * - no connection (an `APICallError` without a status): retryable;
 * - a missing key (`AI_LoadAPIKeyError`): not retryable, naming it;
 * - an abort: returned as is, for the runtime to stop;
 * - anything else a provider package throws while it makes the request and
 *   reads the answer (`unreadableOrAbort`): the answer could not be read, a
 *   non-retryable malformed answer carrying its message.
 */
import { ModelError } from "@errand/runtime";
import { isObject, malformed, retryAfterMs } from "@errand/runtime/ops";

type Fields = Record<string, unknown>;

function nameOf(error: unknown): string | undefined {
  return isObject(error) && typeof error.name === "string" ? error.name : undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The schema issues somewhere in `error`'s causes, as `path: message` lines, or `undefined`. */
function schemaIssues(error: unknown): string | undefined {
  let cause: unknown = error;
  for (let depth = 0; depth < 5 && isObject(cause); depth++) {
    const issues = cause.issues;
    if (Array.isArray(issues) && issues.length > 0) {
      return issues
        .slice(0, 3)
        .map((issue: Fields) => {
          const path = Array.isArray(issue.path) ? issue.path.join(".") : "";
          return `${path || "(root)"}: ${String(issue.message)}`;
        })
        .join("; ");
    }
    cause = cause.cause;
  }
  return undefined;
}

function unreadable(error: unknown): ModelError {
  const issues = schemaIssues(error);
  return malformed(
    issues === undefined
      ? `the provider package could not read it (${messageOf(error)})`
      : `the provider package could not read it (${issues})`,
  );
}

function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

function apiCallFailure(error: Fields): ModelError {
  const status = typeof error.statusCode === "number" ? error.statusCode : undefined;
  if (status === undefined) {
    return new ModelError(`the model server could not be reached: ${messageOf(error)}`, {
      retryable: true,
      cause: error,
    });
  }
  if (status < 300) return unreadable(error);
  const headers = isObject(error.responseHeaders)
    ? new Headers(error.responseHeaders as Record<string, string>)
    : undefined;
  const wait = retryAfterMs(headers);
  return new ModelError(`the model request failed (${status}): ${messageOf(error)}`, {
    retryable: isRetryableStatus(status),
    status,
    ...(wait === undefined ? {} : { retryAfterMs: wait }),
    cause: error,
  });
}

/** `error` as a `ModelError` when it is the AI SDK's, an abort as is, anything else as is. */
export function classifyAiSdkError(error: unknown): unknown {
  if (error instanceof ModelError) return error;
  const name = nameOf(error);
  if (name === "AbortError" || name === "ResponseAborted") return error;
  if (name === "AI_APICallError" && isObject(error)) return apiCallFailure(error);
  if (name === "AI_JSONParseError" || name === "AI_TypeValidationError") return unreadable(error);
  if (name === "AI_LoadAPIKeyError") {
    return new ModelError(`the model has no API key: ${messageOf(error)}`, {
      retryable: false,
      cause: error,
    });
  }
  return error;
}

/**
 * What a provider package threw from `doGenerate` or `doStream`: as
 * {@link classifyAiSdkError}, and any other error (a provider reading an
 * answer it did not expect) a non-retryable malformed answer with its message.
 */
export function providerCallFailure(error: unknown): unknown {
  const classified = classifyAiSdkError(error);
  if (classified !== error) return classified;
  const name = nameOf(error);
  if (name === "AbortError" || name === "ResponseAborted" || error instanceof ModelError)
    return error;
  return unreadable(error);
}
