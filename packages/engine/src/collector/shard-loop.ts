/**
 * One collector's loop over one shard stream. In turn it: re-reads what this
 * consumer still owes from a previous life (once, at start), claims entries
 * other collectors left idle for `claimIdleMs` (a scan every `claimIdleMs`),
 * and otherwise blocks on new entries. Each batch is applied; the entries
 * applied are acknowledged a few batches at a time, in one XACK (see
 * `deferred-acknowledgements.ts`): the blocking read waits no longer than the
 * oldest of them may, and the loop acknowledges them before it ends.
 * Failures are retried or dead-lettered; the stream is trimmed
 * behind the group every `trimIntervalMs`. Errors (Redis gone, …) are logged
 * and the loop goes on after a pause; a batch whose writes Redis refuses for
 * lack of memory waits until it has room (see `apply-batch.ts`), so a shortage
 * never counts against an entry's deliveries. The loop ends once
 * `isStopping()` says so. Each batch read is told on the diagnostics channel
 * {@link COLLECTOR_BATCH_CHANNEL} (for profiling: nothing is built without a subscriber).
 */
import { channel } from "node:diagnostics_channel";
import { setTimeout as delay } from "node:timers/promises";
import type { ShardEntry, StreamEntry } from "@errand/store";
import { decodeShardEntry } from "@errand/store/ops";
import type { RedisConnection } from "../redis/connection.js";
import { applyBatch } from "./apply-batch.js";
import {
  claimIdleEntries,
  type DeliveredEntry,
  ensureGroup,
  ensureGroupWhenRoom,
  type GroupReader,
  isMissingGroup,
  readNewEntries,
  readOwnPending,
} from "./consumer-group.js";
import type { CollectorContext } from "./context.js";
import { handleFailures } from "./dead-letter.js";
import { DeferredAcknowledgements } from "./deferred-acknowledgements.js";
import { trimAcknowledged } from "./trim.js";

/** The pace of a shard loop. */
export interface ShardLoopTiming {
  /** Entries per read. */
  batchSize: number;
  /** The longest one blocking read waits. */
  blockMs: number;
  /** How long an entry stays pending untouched before another collector claims it. */
  claimIdleMs: number;
  /** How often the stream is trimmed behind the group. */
  trimIntervalMs: number;
  /**
   * The longest an applied entry waits for its acknowledgement (0: each
   * batch is acknowledged once applied); far below `claimIdleMs`, so that
   * no collector claims an entry applied and not yet acknowledged.
   */
  ackIntervalMs: number;
}

/**
 * The `node:diagnostics_channel` name on which each shard loop announces a
 * batch it read, as a {@link CollectorBatchRead}, before applying it.
 */
export const COLLECTOR_BATCH_CHANNEL = "errand:collector:batch-read";

/** What {@link COLLECTOR_BATCH_CHANNEL} carries: one batch a shard loop read. */
export interface CollectorBatchRead {
  shard: number;
  /** When its read returned, in ms since the epoch, with sub-millisecond precision. */
  readAt: number;
  /** The run of each readable entry, in stream order. */
  runIds: string[];
}

const batchReads = channel(COLLECTOR_BATCH_CHANNEL);

/** The pause after an error before the loop tries again. */
const ERROR_PAUSE_MS = 250;

/** Where the loop stands between batches. */
interface LoopState {
  /** Where re-reading this consumer's own pending entries goes on; undefined once done. */
  ownPendingAfter: string | undefined;
  claimFrom: string;
  nextClaimAt: number;
  nextTrimAt: number;
}

/** Runs the loop of `shard` until `isStopping()`; `blocking` is dedicated to its blocking reads. */
export async function runShardLoop(
  context: CollectorContext,
  shard: number,
  blocking: RedisConnection,
  timing: ShardLoopTiming,
  isStopping: () => boolean,
): Promise<void> {
  const { redis, keys, group, consumer, logger } = context;
  const reader: GroupReader = { stream: keys.shardEvents(shard), group, consumer };
  const state: LoopState = {
    ownPendingAfter: "0-0",
    claimFrom: "0-0",
    nextClaimAt: 0,
    nextTrimAt: Date.now() + timing.trimIntervalMs,
  };
  const applied = new DeferredAcknowledgements(redis, reader, {
    batchSize: timing.batchSize,
    ackIntervalMs: timing.ackIntervalMs,
    latestMs: Math.max(timing.ackIntervalMs, Math.floor(timing.claimIdleMs / 10)),
  });

  async function nextEntries(): Promise<DeliveredEntry[]> {
    if (state.ownPendingAfter !== undefined) {
      const owed = await readOwnPending(redis, reader, state.ownPendingAfter, timing.batchSize);
      state.ownPendingAfter = owed.at(-1)?.[0];
      if (owed.length > 0) return owed;
    }
    if (Date.now() >= state.nextClaimAt) {
      const step = await claimIdleEntries(
        redis,
        reader,
        timing.claimIdleMs,
        state.claimFrom,
        timing.batchSize,
      );
      state.claimFrom = step.nextId;
      if (step.nextId === "0-0") state.nextClaimAt = Date.now() + timing.claimIdleMs;
      if (step.entries.length > 0) return step.entries;
    }
    // Blocks until the next claim scan, and no longer than the applied entries may wait for their XACK.
    const untilDue = Math.min(state.nextClaimAt - Date.now(), applied.msUntilLatest());
    return readNewEntries(
      blocking,
      reader,
      timing.batchSize,
      Math.max(1, Math.min(timing.blockMs, untilDue)),
    );
  }

  async function collect(delivered: readonly DeliveredEntry[], readAt: number): Promise<void> {
    // Indexed loops, one array each: a batch mostly carries one entry, so its fixed cost is a run's.
    const entries: ShardEntry[] = [];
    const deleted: string[] = [];
    for (let i = 0; i < delivered.length; i++) {
      const entry = delivered[i]!;
      if (entry[1] === null) deleted.push(entry[0]);
      else entries.push(decodeShardEntry(shard, entry as StreamEntry));
    }
    // An entry deleted while it was pending has nothing to apply: it is acknowledged like an applied one.
    applied.hold(deleted);
    if (batchReads.hasSubscribers) {
      const read: CollectorBatchRead = { shard, readAt, runIds: entries.map(({ runId }) => runId) };
      batchReads.publish(read);
    }
    const outcome = await applyBatch(context, shard, entries);
    applied.hold(outcome.applied);
    // Stopping ends the waits for a Redis out of memory: what failed then stays pending for the others.
    if (context.stopping.aborted) return;
    if (outcome.failures.length > 0) await handleFailures(context, shard, outcome.failures);
    if (logger.isLevelEnabled?.("debug") !== false) {
      logger.debug(
        {
          shard,
          entries: entries.length,
          settled: outcome.settled.length,
          failed: outcome.failures.length,
        },
        "shard batch indexed",
      );
    }
  }

  await ensureGroupWhenRoom(context, reader.stream).catch(() => undefined);
  while (!isStopping()) {
    try {
      const delivered = await nextEntries();
      if (delivered.length > 0)
        await collect(delivered, performance.timeOrigin + performance.now());
      // An empty read: the stream is quiet, nothing to wait for before acknowledging.
      if (delivered.length === 0 || applied.isDue()) await applied.flush();
      if (Date.now() >= state.nextTrimAt) {
        await trimAcknowledged(redis, reader.stream);
        state.nextTrimAt = Date.now() + timing.trimIntervalMs;
      }
    } catch (error) {
      if (isStopping()) break;
      if (isMissingGroup(error)) {
        await ensureGroup(redis, reader.stream, group).catch(() => undefined);
      }
      logger.warn({ shard, err: error }, "collector loop error; retrying");
      await delay(ERROR_PAUSE_MS);
    }
  }
  // A crash before this leaves them pending: re-read and applied again, idempotently, at the restart.
  await applied.flush().catch((error: unknown) => {
    logger.warn(
      { shard, err: error },
      "applied entries left unacknowledged; they will be applied again",
    );
  });
}
