/**
 * The runtime's `LiveChannel` on the Redis store (docs/architecture/redis-layout.md#the-live-channel-streaming): deltas
 * are written one transaction at a time per run; those published while a
 * write is in flight wait and go in the next, adjacent pieces of the same
 * text or call arguments joined, so a fast model costs about one write per
 * round trip, not one per token. A failed write is logged and its deltas
 * dropped: the channel is a view, the log is the truth.
 */
import type { LiveDelta } from "@errand/core";
import type { LiveChannel, Logger } from "@errand/runtime";
import type { EventStore } from "@errand/store";

interface RunChannel {
  pending: LiveDelta[];
  /** The write in flight and those chained after it; settles when the run's queue is empty. */
  writing: Promise<void> | undefined;
}

/** `next` joined onto `last` when it continues it (same step, same text or call), else `undefined`. */
function joined(last: LiveDelta | undefined, next: LiveDelta): LiveDelta | undefined {
  if (last === undefined || last.step !== next.step) return undefined;
  if (last.type === "text" && next.type === "text") return { ...last, text: last.text + next.text };
  if (
    last.type === "tool-arguments" &&
    next.type === "tool-arguments" &&
    last.index === next.index &&
    next.callId === undefined &&
    next.name === undefined
  ) {
    return { ...last, text: last.text + next.text };
  }
  return undefined;
}

/** A {@link LiveChannel} writing to `store`'s live channels. */
export function redisLiveChannel(store: EventStore, logger: Logger): LiveChannel {
  const runs = new Map<string, RunChannel>();

  async function drain(runId: string, channel: RunChannel): Promise<void> {
    while (channel.pending.length > 0) {
      const deltas = channel.pending;
      channel.pending = [];
      try {
        await store.appendLive(runId, deltas);
      } catch (error) {
        logger.warn({ runId, deltas: deltas.length, error: String(error) }, "live deltas dropped");
      }
    }
    runs.delete(runId);
  }

  return {
    publish(runId, delta) {
      const channel = runs.get(runId) ?? { pending: [], writing: undefined };
      runs.set(runId, channel);
      const merged = joined(channel.pending.at(-1), delta);
      if (merged) channel.pending[channel.pending.length - 1] = merged;
      else channel.pending.push(delta);
      channel.writing ??= drain(runId, channel);
    },
    flush: (runId) => runs.get(runId)?.writing ?? Promise.resolve(),
  };
}
