/**
 * The BullMQ worker of a queue of runs: BullMQ's `Worker`, whose job locks
 * outlast a Redis out of memory (docs/architecture/redis-errors.md#redis-out-of-memory). BullMQ renews a
 * lock with SET, which Redis refuses while it is out of memory; a lock left
 * to lapse would let the stalled check hand a run its worker still holds
 * (waiting for room to append its step) to another worker, as if the first
 * had died. When BullMQ's renewal is refused for lack of memory, the locks
 * are kept with `lua/keep-locks-n.lua` instead, which only sets expiries.
 */

import { ErrandError } from "@errand/core";
import type { Logger } from "@errand/runtime";
import { defineLuaCommand, type LuaCall, readLuaFile } from "@errand/store/ops";
import { type Processor, Worker, type WorkerOptions } from "bullmq";
import type { RunJobData } from "../queues/job-data.js";
import type { RedisConnection } from "../redis/connection.js";
import { isRedisOutOfMemory } from "../redis/out-of-memory.js";
import {
  type DisconnectingConnection,
  endDisconnectsWhileReconnecting,
} from "./blocking-disconnect.js";
import { endReconnectsOnceReady, type ReconnectingConnection } from "./blocking-reconnect.js";
import type { ProcessOutcome } from "./process-outcome.js";

const KEEP_LOCKS_SCRIPT = {
  command: "errandKeepLocks",
  lua: readLuaFile(new URL("../../lua/keep-locks-n.lua", import.meta.url)),
  numberOfKeys: "variable",
} as const;

function isJobIdList(reply: unknown): reply is string[] {
  return Array.isArray(reply) && reply.every((jobId) => typeof jobId === "string");
}

/** A BullMQ worker of runs whose job locks are kept while Redis is out of memory. */
export class RunWorker extends Worker<RunJobData, ProcessOutcome> {
  private readonly keepLocks: LuaCall;

  /**
   * `queue`, `processor` and `options` as BullMQ's `Worker` takes them;
   * `scripts` is the connection the lock-keeping script runs on (any
   * connection to the same Redis), `logger` hears when locks are kept that way.
   */
  constructor(
    queue: string,
    processor: Processor<RunJobData, ProcessOutcome>,
    options: WorkerOptions,
    scripts: RedisConnection,
    private readonly logger: Logger,
  ) {
    super(queue, processor, options);
    // BullMQ keeps its blocking connection private; `blocking-reconnect.ts` and
    // `blocking-disconnect.ts` say why it is reached here.
    const { blockingConnection } = this as unknown as {
      blockingConnection: ReconnectingConnection & DisconnectingConnection;
    };
    endReconnectsOnceReady(blockingConnection);
    endDisconnectsWhileReconnecting(blockingConnection);
    this.keepLocks = defineLuaCommand(scripts, KEEP_LOCKS_SCRIPT);
  }

  /**
   * BullMQ's renewal of the locks of `jobIds` (held with `tokens`), for
   * `duration` ms; when Redis refuses it for lack of memory, the locks are
   * kept by setting their expiry. Resolves with the jobs whose lock is lost.
   */
  override async extendJobLocks(
    jobIds: string[],
    tokens: string[],
    duration: number,
  ): Promise<string[]> {
    try {
      return await super.extendJobLocks(jobIds, tokens, duration);
    } catch (error) {
      if (!isRedisOutOfMemory(error) || jobIds.length === 0) throw error;
      const lockKeys = jobIds.map((jobId) => `${this.toKey(jobId)}:lock`);
      const lost = await this.keepLocks(
        [this.keys.stalled!, ...lockKeys],
        [duration, ...tokens, ...jobIds],
      );
      if (!isJobIdList(lost)) {
        throw new ErrandError("internal", `keep-locks-n.lua answered ${JSON.stringify(lost)}`);
      }
      this.logger.warn(
        { jobs: jobIds.length, lost },
        "Redis is out of memory: job locks kept by their expiry",
      );
      return lost;
    }
  }
}
