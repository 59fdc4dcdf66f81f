/**
 * The run's live channel as the agent loop sees it: a model that streams
 * hands its deltas to the request's `onDelta`; {@link liveModel} stamps them
 * with their step and publishes them, opening each request that streams with
 * a `start` (docs/architecture/redis-layout.md#the-live-channel-streaming), and waits for them to be written before the
 * step's answer is handed back. A model that never streams publishes nothing,
 * so the channel costs a non-streaming run nothing.
 */
import type { LiveDelta } from "@errand/core";
import type { Model } from "./model.js";

/**
 * Where a run's deltas go: the Redis live channel in a worker. `publish`
 * returns at once and never throws (a failed write is the channel's to
 * report): a live viewer may miss deltas, the run never waits on each.
 */
export interface LiveChannel {
  publish(runId: string, delta: LiveDelta): void;
  /**
   * Resolves once every delta published for the run so far is written (or
   * given up), never rejecting: awaited before a streamed step is appended,
   * so that the channel is complete by the time the log has the step.
   */
  flush(runId: string): Promise<void>;
}

/**
 * `model`, whose requests publish their deltas on `live` as deltas of the
 * request's step, each request that streams opening with a `start` of
 * `attempt`. Everything but `respond` is `model`'s own.
 */
export function liveModel(model: Model, live: LiveChannel, attempt: number): Model {
  return {
    name: model.name,
    supportsTools: model.supportsTools,
    ...(model.providerKey === undefined ? {} : { providerKey: model.providerKey }),
    ...(model.capabilities === undefined ? {} : { capabilities: model.capabilities }),
    ...(model.refuseSettings === undefined ? {} : { refuseSettings: model.refuseSettings }),
    async respond(request, signal) {
      const { runId, step } = request;
      let started = false;
      const response = await model.respond(
        {
          ...request,
          onDelta(delta) {
            if (!started) live.publish(runId, { type: "start", step, attempt });
            started = true;
            live.publish(runId, { ...delta, step });
          },
        },
        signal,
      );
      if (started) await live.flush(runId);
      return response;
    },
  };
}
