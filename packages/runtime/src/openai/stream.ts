/**
 * Reading a streamed answer (`stream: true`) of either API shape: each chunk
 * is folded into the answer the non-streaming API would have sent, which is
 * then read by the same rules (`openai/answer.ts`, `openai/response-answer.ts`),
 * while the text and tool-argument pieces it carries go to the request's
 * `onDelta` as they arrive. A stream that fails or ends before its answer does
 * is a retryable `ModelError`: the request is made again from the start.
 */
import type { ModelDelta } from "@errand/core";
import { APIUserAbortError } from "openai";
import { malformed } from "../answer-fields.js";
import { errorMessage, ModelError } from "../errors.js";
import { classifyOpenAIError } from "./client.js";

/** Where a stream's deltas go: the request's `onDelta`, or nowhere. */
export type DeltaListener = ((delta: ModelDelta) => void) | undefined;

/** Folds the chunks of one streamed answer into its whole body. */
export interface StreamFold {
  /** Takes the next chunk, handing the deltas it carries to the listener. */
  add(chunk: unknown): void;
  /**
   * The whole answer, as the API shape's reader takes it. Throws a retryable
   * `ModelError` when the stream ended before its answer did.
   */
  answer(): unknown;
}

/** The error of a stream that ended before its answer did. */
export function endedEarly(): ModelError {
  return new ModelError("the model's stream ended before its answer did", { retryable: true });
}

/** What failed while a stream was being read, as the runtime retries or reports it. */
function streamFailure(error: unknown): unknown {
  if (error instanceof ModelError || error instanceof APIUserAbortError) return error;
  if (error instanceof SyntaxError) return malformed("a streamed chunk is not JSON");
  const classified = classifyOpenAIError(error);
  if (classified instanceof ModelError) return classified;
  return new ModelError(`the model's stream failed: ${errorMessage(error)}`, {
    retryable: true,
    cause: error,
  });
}

/**
 * The whole answer of the stream `open` resolves with, folded by `fold`.
 * Rejects as the non-streaming request would for a failed request, and with a
 * `ModelError` for a stream that fails or ends early.
 */
export async function streamedAnswer(
  open: PromiseLike<AsyncIterable<unknown>>,
  fold: StreamFold,
): Promise<unknown> {
  let chunks: AsyncIterable<unknown>;
  try {
    chunks = await open;
  } catch (error) {
    throw classifyOpenAIError(error);
  }
  try {
    for await (const chunk of chunks) fold.add(chunk);
  } catch (error) {
    throw streamFailure(error);
  }
  return fold.answer();
}
