/**
 * A worker's flow control, put together (docs/architecture/flow-control.md#flow-control): the concurrency gate its runs pass before they start, and its
 * agents' models under their provider keys' shared rate limits.
 */
import type { Logger } from "@errand/runtime";
import type { RedisClient } from "@errand/store/ops";
import type { ResolvedAgent } from "../worker/agent-models.js";
import { flowKeys } from "./flow-keys.js";
import type { FlowControlOptions } from "./flow-options.js";
import { flowScripts } from "./flow-scripts.js";
import { withProviderLimits } from "./provider-limits.js";
import { createRunAdmission, type RunAdmission } from "./run-admission.js";

/** What a worker's flow control is made of. */
export interface WorkerFlowControl {
  admission: RunAdmission;
  /** The worker's agents, their models rate limited (when it was told `flowControl`). */
  agents: ReadonlyMap<string, ResolvedAgent>;
}

/**
 * The flow control of a worker on `redis` under `prefix`. Every worker
 * admits runs (taking a started run off its key's fair queue); only a worker
 * told `flowControl` enforces limits and shares provider pauses.
 */
export function workerFlowControl(
  redis: RedisClient,
  prefix: string,
  logger: Logger,
  agents: ReadonlyMap<string, ResolvedAgent>,
  flowControl: FlowControlOptions | undefined,
): WorkerFlowControl {
  const keys = flowKeys(prefix);
  const scripts = flowScripts(redis);
  const admission = createRunAdmission({
    redis,
    keys,
    scripts,
    logger,
    ...(flowControl === undefined ? {} : { flowControl }),
  });
  if (flowControl === undefined) return { admission, agents };
  const limited = new Map(
    [...agents].map(([name, resolved]) => [
      name,
      {
        ...resolved,
        model: withProviderLimits(resolved.model, { redis, keys, scripts, flowControl }),
      },
    ]),
  );
  return { admission, agents: limited };
}
