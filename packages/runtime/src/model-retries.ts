/**
 * The one place model requests are retried: rate limits (429), server errors
 * (5xx) and lost connections are tried again with exponential backoff and
 * jitter, waiting exactly what the provider asked for when it sent
 * `retry-after`. Every wait gives up at once when the run's signal fires.
 */
import { isErrandError } from "@errand/core";
import { abortableSleep, raceAbort } from "./abort.js";
import { errorMessage, ModelError } from "./errors.js";
import { type Logger, noopLogger } from "./logger.js";
import type { Model, ModelRequest, ModelResponse } from "./model.js";

/** How failed model requests are retried. */
export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** The first backoff delay; it doubles with every retry. */
  baseDelayMs: number;
  /** The longest backoff delay. */
  maxDelayMs: number;
  /**
   * The longest `retry-after` honoured. A provider asking for a longer wait
   * ends the request at once with a retryable error instead of holding the worker.
   */
  maxRetryAfterMs: number;
  /** Waits between attempts; replaceable so tests can observe the delays. Must reject when `signal` fires. */
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** The policy used unless a run overrides it: 3 retries, 0.5 s doubling up to 8 s, `retry-after` up to 60 s. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 3,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
  sleep: abortableSleep,
};

/**
 * The wait before retry number `retry` (0 for the first retry): the provider's
 * `retry-after` when it sent one (or `undefined` when that is longer than the
 * policy allows), else exponential backoff with up to 25 % jitter.
 */
export function retryDelayMs(
  error: ModelError,
  retry: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number | undefined {
  if (error.retryAfterMs !== undefined) {
    return error.retryAfterMs <= policy.maxRetryAfterMs
      ? Math.max(0, error.retryAfterMs)
      : undefined;
  }
  const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  return Math.round(backoff * (1 - random() * 0.25));
}

function asModelError(error: unknown, model: Model): unknown {
  if (isErrandError(error)) return error;
  return new ModelError(`model ${model.name} failed: ${errorMessage(error)}`, { cause: error });
}

/**
 * Asks `model` for one response, retrying retryable `ModelError`s under
 * `policy`. Rejects with the last `ModelError` when retries are exhausted or
 * the error is not retryable, with any other `ErrandError` unchanged, and with
 * the abort reason once `signal` fires. Anything else a model throws becomes a
 * non-retryable `ModelError`.
 */
export async function respondWithRetries(
  model: Model,
  request: ModelRequest,
  signal: AbortSignal,
  policy: RetryPolicy = DEFAULT_RETRY_POLICY,
  logger: Logger = noopLogger,
): Promise<ModelResponse> {
  for (let retry = 0; ; retry++) {
    try {
      return await raceAbort(model.respond(request, signal), signal);
    } catch (thrown) {
      if (signal.aborted) throw thrown;
      const error = asModelError(thrown, model);
      if (!(error instanceof ModelError) || !error.retryable) throw error;
      const waitMs = retry < policy.maxRetries ? retryDelayMs(error, retry, policy) : undefined;
      if (waitMs === undefined) throw error;
      logger.warn(
        {
          step: request.step,
          retry: retry + 1,
          waitMs,
          status: error.status,
          error: error.message,
        },
        "model request failed; retrying",
      );
      await policy.sleep(waitMs, signal);
    }
  }
}
