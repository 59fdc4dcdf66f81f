/**
 * Admitting a run to a worker slot under the fleet's concurrency limits
 * (docs/architecture/flow-control.md#flow-control): before a worker starts (or
 * resumes) a run, it takes one lease in the run's agent's lease set (when
 * the agent has a limit) and one in its concurrency key's (when a limit
 * matches the key), all or none, in one script. A run refused goes back to
 * the queue, delayed, and frees the worker's slot. An admitted run's leases
 * are renewed while it runs and given back when its job leaves the worker;
 * a crashed worker's leases lapse after `leaseMs`. Admission also takes the
 * run off its key's fair queue (`fair-queue.ts`): it waits no more.
 */
import type { EventDataOf } from "@errand/core";
import type { Logger } from "@errand/runtime";
import type { RedisClient } from "@errand/store/ops";
import type { FlowKeys } from "./flow-keys.js";
import {
  type ConcurrencyLimits,
  DEFAULT_FLOW_RECHECK_MS,
  DEFAULT_LEASE_MS,
  type FlowControlOptions,
  type LeaseSlot,
  resolveConcurrencyLimits,
} from "./flow-options.js";
import type { FlowScripts } from "./flow-scripts.js";

/** A run holding its slots: give them back once its job leaves the worker. */
export interface HeldSlots {
  release(): Promise<void>;
}

/** What {@link RunAdmission.admit} answers: the run holds its slots, or waits until `retryAtMs`. */
type Admission =
  | { admitted: true; slots: HeldSlots }
  | { admitted: false; retryAtMs: number; limitedBy: string };

/** The concurrency gate of one worker. */
export interface RunAdmission {
  /** Takes the slots of the run `runId` queued as `queued`, or says when to try again. */
  admit(runId: string, queued: EventDataOf<"run-queued">): Promise<Admission>;
}

/** What {@link createRunAdmission} needs. */
export interface RunAdmissionOptions {
  redis: RedisClient;
  keys: FlowKeys;
  scripts: FlowScripts;
  logger: Logger;
  flowControl?: FlowControlOptions;
}

const NOTHING_HELD: HeldSlots = { release: async () => {} };

function slotsOf(
  limits: ConcurrencyLimits,
  keys: FlowKeys,
  queued: EventDataOf<"run-queued">,
): LeaseSlot[] {
  const slots: LeaseSlot[] = [];
  const agentLimit = limits.ofAgent(queued.agent);
  if (agentLimit !== undefined)
    slots.push({ key: keys.agentLeases(queued.agent), limit: agentLimit });
  const { concurrencyKey } = queued;
  const keyLimit = concurrencyKey === undefined ? undefined : limits.ofKey(concurrencyKey);
  if (concurrencyKey !== undefined && keyLimit !== undefined) {
    slots.push({ key: keys.keyLeases(concurrencyKey), limit: keyLimit });
  }
  return slots;
}

/** The gate of a worker told `flowControl` (without limits, every run is admitted). */
export function createRunAdmission(options: RunAdmissionOptions): RunAdmission {
  const { redis, keys, scripts, logger } = options;
  const limits = resolveConcurrencyLimits(options.flowControl);
  const leaseMs = options.flowControl?.leaseMs ?? DEFAULT_LEASE_MS;
  const recheckMs = options.flowControl?.recheckMs ?? DEFAULT_FLOW_RECHECK_MS;

  const takeLeases = async (runId: string, slots: readonly LeaseSlot[]): Promise<number> =>
    Number(
      await scripts.leases(
        slots.map((slot) => slot.key),
        [runId, leaseMs, ...slots.map((slot) => slot.limit)],
      ),
    );

  /** Renews the leases every third of their life until released. */
  const hold = (runId: string, slots: readonly LeaseSlot[]): HeldSlots => {
    const timer = setInterval(() => {
      takeLeases(runId, slots).then(
        (refused) => {
          if (refused !== 0) logger.warn({ runId }, "a lease lapsed while its run ran");
        },
        (error: unknown) => logger.warn({ runId, error: String(error) }, "lease renewal failed"),
      );
    }, leaseMs / 3);
    timer.unref();
    return {
      async release() {
        clearInterval(timer);
        await Promise.all(slots.map((slot) => redis.zrem(slot.key, runId)));
      },
    };
  };

  return {
    async admit(runId, queued) {
      const slots = slotsOf(limits, keys, queued);
      const refused = slots.length === 0 ? 0 : await takeLeases(runId, slots);
      if (refused === 0) {
        if (queued.concurrencyKey !== undefined) {
          await redis.zrem(keys.fairQueue(queued.concurrencyKey), runId);
        }
        return { admitted: true, slots: slots.length === 0 ? NOTHING_HELD : hold(runId, slots) };
      }
      const jitter = 0.5 + Math.random();
      return {
        admitted: false,
        retryAtMs: Date.now() + Math.round(recheckMs * jitter),
        limitedBy: slots[refused - 1]!.key,
      };
    },
  };
}
