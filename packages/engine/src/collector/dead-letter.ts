/**
 * Entries the collectors keep failing on. A failed entry stays pending and is
 * delivered again (claimed once it has been idle); once it has been delivered
 * `maxDeliveries` times and fails again, it moves to the shard's dead-letter
 * stream and is acknowledged (`lua/dead-letter-2.lua`), so one poison entry
 * never holds the collectors back.
 */
import type { EntryFailure } from "./apply-batch.js";
import { deliveryCount } from "./consumer-group.js";
import type { CollectorContext } from "./context.js";

/**
 * Dead-letters the failures that used up their deliveries and leaves the
 * others pending. Resolves with how many were dead-lettered.
 */
export async function handleFailures(
  context: CollectorContext,
  shard: number,
  failures: readonly EntryFailure[],
): Promise<number> {
  if (failures.length === 0) return 0;
  const { redis, keys, group, consumer, maxDeliveries, scripts, logger } = context;
  const stream = keys.shardEvents(shard);
  const outcomes = await Promise.all(
    failures.map(async ({ id, runId, error }) => {
      const deliveries = await deliveryCount(redis, stream, group, id);
      if (deliveries === undefined) return false;
      if (deliveries < maxDeliveries) {
        logger.warn(
          { shard, entryId: id, runId, deliveries, error },
          "shard entry failed; it will be retried",
        );
        return false;
      }
      const moved = await scripts.deadLetter(
        [stream, keys.deadLetters(shard)],
        [group, id, error, deliveries, consumer],
      );
      if (moved === 1) {
        logger.error({ shard, entryId: id, runId, deliveries, error }, "shard entry dead-lettered");
      }
      return moved === 1;
    }),
  );
  return outcomes.filter(Boolean).length;
}
