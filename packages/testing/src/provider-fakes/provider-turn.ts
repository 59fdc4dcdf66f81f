/**
 * The turns a fake provider plays, written once for the Anthropic and Gemini
 * fakes: what the model says and calls (after thinking, when asked), how a
 * request fails, or a body the provider would never send. Which turn is due
 * is read from the request alone, as the fake OpenAI server does: the number
 * of model messages in the conversation plus the failures already served to
 * it, so runs resumed on another worker get their own turns.
 */

/** One tool call of a turn. */
export interface TurnCall {
  tool: string;
  args: unknown;
}

/** One model request's outcome. */
export type ProviderTurn =
  | {
      say?: string;
      call?: TurnCall[];
      /** Think before answering: a signed thinking block (Anthropic) or a thought signature (Gemini). */
      think?: boolean;
      /** Also a redacted thinking block (Anthropic). */
      redact?: boolean;
      /** Hold the answer this long (dropped when the client goes away). */
      sleepMs?: number;
    }
  /** A failed request: `status` (default 500), `retry-after` when given. */
  | { fail: string; status?: number; retryAfterSeconds?: number; sleepMs?: number }
  /** A 200 answer with this body, as it is. */
  | { malformed: unknown };

/** Where a fake finds its turns. */
export interface TurnSource {
  /**
   * The turns of a request, by the model it names and the text of its first
   * user message (a test may carry the turns in the run's input);
   * `undefined` for an unknown model (404).
   */
  turnsFor(model: string, firstUserText: string | undefined): readonly ProviderTurn[] | undefined;
}

/** Counts the failures served per conversation, to find the due turn. */
export class TurnCounter {
  private readonly failures = new Map<string, number>();

  /** The index of the due turn for a conversation known by `key` with `answered` model messages. */
  due(key: string, answered: number): number {
    return answered + (this.failures.get(key) ?? 0);
  }

  failed(key: string): void {
    this.failures.set(key, (this.failures.get(key) ?? 0) + 1);
  }
}
