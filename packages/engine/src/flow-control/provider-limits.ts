/**
 * Provider rate limits shared by the fleet (docs/architecture/flow-control.md#flow-control). A model with a `providerKey` is wrapped so that each request
 * first takes one request from its provider key's bucket (and finds its
 * token bucket above 0), waiting as long as Redis says, and each response
 * debits the tokens it used. A 429 pauses the provider key for every worker
 * for the `retry-after` it carried (or {@link DEFAULT_429_PAUSE_MS}); the
 * error still goes to the run's retry policy, whose next try waits out the
 * pause like everyone else's. Overshoot of tokens per minute is bounded by
 * the requests in flight: a request starts while the bucket is above 0, and
 * its tokens are known only once it answered.
 */

import { setTimeout as sleep } from "node:timers/promises";
import { type Model, ModelError, type ModelResponse } from "@errand/runtime";
import type { RedisClient } from "@errand/store/ops";
import type { FlowKeys } from "./flow-keys.js";
import type { FlowControlOptions, ProviderRateLimit } from "./flow-options.js";
import type { FlowScripts } from "./flow-scripts.js";

/** How long a 429 without `retry-after` pauses its provider key: 1 s. */
const DEFAULT_429_PAUSE_MS = 1_000;

/** The longest single wait before Redis is asked again (a pause may be lifted by its TTL only). */
const MAX_WAIT_MS = 5_000;

/** What the models of a worker are wrapped with. */
export interface ProviderLimitsContext {
  redis: RedisClient;
  keys: FlowKeys;
  scripts: FlowScripts;
  flowControl: FlowControlOptions;
}

function limitOf(options: FlowControlOptions, providerKey: string): ProviderRateLimit {
  const limits = options.providerLimits ?? {};
  return limits[providerKey] ?? limits["*"] ?? {};
}

function tokensOf(response: ModelResponse): number {
  const { usage } = response;
  return usage.inputTokens + usage.outputTokens;
}

/**
 * `model` under its provider key's fleet-wide limits and 429 pauses; a model
 * without a provider key is returned as it is.
 */
export function withProviderLimits(model: Model, context: ProviderLimitsContext): Model {
  const { providerKey } = model;
  if (providerKey === undefined) return model;
  const { requestsPerMinute = 0, tokensPerMinute = 0 } = limitOf(context.flowControl, providerKey);
  const keys = [context.keys.providerBucket(providerKey), context.keys.providerPause(providerKey)];
  const call = (mode: string, ...args: number[]) =>
    context.scripts.providerRate(keys, [mode, requestsPerMinute, tokensPerMinute, ...args]);

  const takeTurn = async (signal: AbortSignal): Promise<void> => {
    for (;;) {
      const waitMs = Number(await call("take"));
      if (waitMs <= 0) return;
      await sleep(Math.min(waitMs, MAX_WAIT_MS), undefined, { signal });
    }
  };

  return {
    name: model.name,
    supportsTools: model.supportsTools,
    providerKey,
    ...(model.capabilities === undefined ? {} : { capabilities: model.capabilities }),
    ...(model.refuseSettings === undefined
      ? {}
      : { refuseSettings: model.refuseSettings.bind(model) }),
    respond: async (request, signal) => {
      await takeTurn(signal);
      try {
        const response = await model.respond(request, signal);
        if (tokensPerMinute > 0) await call("debit", tokensOf(response));
        return response;
      } catch (error) {
        if (error instanceof ModelError && error.status === 429) {
          await call("pause", error.retryAfterMs ?? DEFAULT_429_PAUSE_MS);
        }
        throw error;
      }
    },
  };
}
