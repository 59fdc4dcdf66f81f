/**
 * The entries a shard loop applied and has not acknowledged yet. Applying an
 * entry is idempotent and a result reaches its waiters through the index
 * call and its PUBLISH, not through the XACK, so the loop holds the ids it
 * applied and acknowledges several batches in one XACK: once it holds a
 * batch's worth, at its next read once the oldest has waited `ackIntervalMs`,
 * after a read that found the stream quiet, and before it ends; its blocking
 * read waits no longer than the oldest may wait at most, `latestMs`
 * (docs/architecture/collector.md,
 * "When entries are acknowledged"). Until then they stay pending in the
 * group: trimming keeps them, and a collector killed meanwhile re-reads and
 * re-applies them when it restarts (or another claims them after
 * `claimIdleMs`, far longer than the deferral).
 */
import type { RedisConnection } from "../redis/connection.js";
import type { GroupReader } from "./consumer-group.js";

/** When held ids must be acknowledged. */
export interface AcknowledgementPace {
  /** Acknowledge once this many ids are held. */
  batchSize: number;
  /** Acknowledge at the next read once the oldest held id has waited this long; 0: after every batch. */
  ackIntervalMs: number;
  /**
   * The longest the oldest held id waits: the blocking read ends by then.
   * Not bounding the read by `ackIntervalMs` spares a shard with a run every
   * few hundred ms a read that times out after each batch.
   */
  latestMs: number;
}

/** The applied, unacknowledged ids of one shard loop, acknowledged in one XACK when due. */
export class DeferredAcknowledgements {
  private held: string[] = [];
  /** When the oldest held id was held, in ms since the epoch; Infinity when none is held. */
  private heldAt = Number.POSITIVE_INFINITY;

  constructor(
    private readonly redis: RedisConnection,
    private readonly reader: GroupReader,
    private readonly pace: AcknowledgementPace,
  ) {}

  /** Holds `ids`, applied, until they are acknowledged. */
  hold(ids: readonly string[]): void {
    if (ids.length === 0) return;
    if (this.held.length === 0) this.heldAt = Date.now();
    for (let i = 0; i < ids.length; i++) this.held.push(ids[i]!);
  }

  /** Whether the held ids must be acknowledged now: a batch's worth of them, or the oldest waited long enough. */
  isDue(): boolean {
    return (
      this.held.length >= this.pace.batchSize || Date.now() >= this.heldAt + this.pace.ackIntervalMs
    );
  }

  /** How long the loop may block before the oldest held id has waited `latestMs`; Infinity when none is held. */
  msUntilLatest(): number {
    return this.heldAt + this.pace.latestMs - Date.now();
  }

  /**
   * Acknowledges every held id in one XACK. When Redis refuses it (it cannot
   * persist, a failover, …) the ids stay held, for the next try, and the error is thrown.
   */
  async flush(): Promise<void> {
    if (this.held.length === 0) return;
    const { stream, group } = this.reader;
    await this.redis.xack(stream, group, ...this.held);
    this.held = [];
    this.heldAt = Number.POSITIVE_INFINITY;
  }
}
