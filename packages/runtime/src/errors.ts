/**
 * The runtime's own members of the `ErrandError` family: the error a model
 * request ends with, and the error a tool throws to end its run.
 */
import {
  ErrandError,
  type ErrandErrorOptions,
  type ErrorCode,
  type WaitpointTimeoutAction,
} from "@errand/core";

/** Options of {@link ModelError}. */
export interface ModelErrorOptions extends ErrandErrorOptions {
  /** The HTTP status of the failed request, when there was one. */
  status?: number;
  /** How long the provider asked us to wait before trying again (`retry-after`). */
  retryAfterMs?: number;
}

/**
 * A model request failed (code `model_error`). `retryable` says whether the
 * same request may succeed later (rate limits, server errors, lost
 * connections); the runtime retries those with backoff, and a run whose model
 * keeps failing ends `failed` with this error's code, message and `retryable`.
 */
export class ModelError extends ErrandError {
  override readonly name: string = "ModelError";
  readonly status: number | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(message: string, options: ModelErrorOptions = {}) {
    super("model_error", message, options);
    this.status = options.status;
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** True when `value` is a {@link ModelError}. */
export function isModelError(value: unknown): value is ModelError {
  return value instanceof ModelError;
}

/** Options of {@link FatalToolError}. */
export interface FatalToolErrorOptions extends ErrandErrorOptions {
  /** The code the run fails with. Default `tool_error`. */
  code?: ErrorCode;
}

/**
 * Thrown from a tool handler, ends the whole run as `failed` with its code
 * (`tool_error` unless given) and `retryable`. Any other error a handler throws
 * only fails that one call: the model sees the message and can go on.
 */
export class FatalToolError extends ErrandError {
  override readonly name: string = "FatalToolError";

  constructor(message: string, options: FatalToolErrorOptions = {}) {
    super(options.code ?? "tool_error", message, options);
  }
}

/** True when `value` is a {@link FatalToolError}. */
export function isFatalToolError(value: unknown): value is FatalToolError {
  return value instanceof FatalToolError;
}

/**
 * Thrown from a tool handler, parks the run: the step's events so far are
 * appended (this call's `tool-called` included, without a result), then
 * `runSteps` rejects with this error so the host can take the run off its
 * worker until `waitFor` settle. When the run resumes, the call is run again
 * from the log, so a parking tool must be safe to repeat (like collecting
 * results). Not a failure: `retryable` is true and the run stays open.
 */
export class ParkRequest extends ErrandError {
  override readonly name: string = "ParkRequest";
  /** The runs this run waits for. */
  readonly waitFor: readonly string[];
  /** The waitpoint this call creates, when it waits for an answer from outside instead of runs. */
  readonly waitpoint: WaitpointRequest | undefined;
  /**
   * Set when the run waits for every child it has instead of `waitFor`
   * (then empty): how many of them were pending (see {@link ParkRequest.forChildren}).
   */
  readonly waitForChildren: number | undefined;

  constructor(
    message: string,
    waitFor: readonly string[],
    waitpoint?: WaitpointRequest,
    waitForChildren?: number,
  ) {
    super("parked", message, {
      retryable: true,
      details: waitForChildren === undefined ? { waitFor } : { waitForChildren },
    });
    this.waitFor = waitFor;
    this.waitpoint = waitpoint;
    this.waitForChildren = waitForChildren;
  }

  /**
   * Parks the run until none of its children is pending, `pending` of them
   * pending now: its `run-parked` logs that count, not their runIds, so what
   * a parent with a million children logs and holds while parked stays small.
   */
  static forChildren(message: string, pending: number): ParkRequest {
    return new ParkRequest(message, [], undefined, pending);
  }
}

/** A waitpoint a parking call creates (see `waitForAnswer`), as its `waitpoint-created` will hold it. */
export interface WaitpointRequest {
  question: string;
  /** Already accepted by `preflightSchema`. */
  answerSchema?: Record<string, unknown>;
  timeoutMs?: number;
  onTimeout: WaitpointTimeoutAction;
}

/** True when `value` is a {@link ParkRequest}. */
export function isParkRequest(value: unknown): value is ParkRequest {
  return value instanceof ParkRequest;
}

/** The message of anything thrown, for events and logs. */
export function errorMessage(value: unknown): string {
  if (value instanceof Error) return value.message;
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
