/**
 * What a run's live channel carries while a model answers (docs/architecture/redis-layout.md#the-live-channel-streaming): the text and tool-call arguments of the step in flight, piece by piece.
 * Deltas are never events of the log: the step's `model-responded` event is
 * the truth, and its text is what the deltas of the step's last request add up to.
 */

/** A piece of a model's answer as it is generated, as a streaming model hands it over. */
export type ModelDelta =
  | { type: "text"; text: string }
  | {
      type: "tool-arguments";
      /** The call's place among the answer's tool calls, from 0. */
      index: number;
      /** The provider's call id, on the first delta of the call that knows it. */
      callId?: string;
      /** The tool's name, on the first delta of the call that knows it. */
      name?: string;
      /** The next piece of the call's arguments (JSON text). */
      text: string;
    };

/**
 * One entry of a run's live channel. `start` opens each model request of a
 * step (a retried request, or the step re-run after a worker crash, opens
 * another): whatever the step's earlier requests streamed is void, and the
 * deltas that follow are the new answer. The others are a {@link ModelDelta}
 * of the request opened last, with its step.
 */
export type LiveDelta =
  | { type: "start"; step: number; attempt: number }
  | (ModelDelta & { step: number });

/** A {@link LiveDelta} as a subscriber reads it, with the offset to resume after it. */
export type LiveEntry = LiveDelta & {
  /** The entry's id in the channel: pass it as `from` to resume after it. */
  offset: string;
};
