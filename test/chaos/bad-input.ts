/**
 * Bad input thrown at a live cluster: malformed job data put straight into
 * the runs queue, oversized inputs through `fire`, and poison entries in a
 * shard stream (invalid JSON, an unknown event type, missing fields, an event
 * for a run nobody fired). None of it may crash a process or disturb a run.
 */
import { randomBytes } from "node:crypto";
import { isErrandError, newRunId } from "@errand/core";
import { type Errand, engineKeys } from "@errand/engine";
import { DEFAULT_COLLECTOR_GROUP, queueOfAgents } from "@errand/engine/ops";
import { DEFAULT_SHARDS } from "@errand/store/ops";
import { Queue } from "bullmq";
import type { Cluster, Redis } from "ioredis";
import { CHAOS_AGENTS } from "./chaos-agents.js";

/** What was thrown in and what came back at once. */
export interface BadInputRecord {
  /** Jobs with malformed data added to the queue. */
  malformedJobs: number;
  /** Oversized inputs fired, and how many `fire` refused with `input_too_large`. */
  oversizedFired: number;
  oversizedRefused: number;
  /** Poison entries added to shard streams. */
  poisonEntries: number;
}

/** An input of about 300 KiB, past the default 256 KiB limit. */
const OVERSIZED_INPUT = { blob: "x".repeat(300 * 1024) };

function unknownRunId(): string {
  return newRunId({ shard: 0, nowMs: Date.now(), random: randomBytes(10) });
}

/** The poison entries: field lists for XADD. */
function poisonEntries(at: string): string[][] {
  return [
    ["runId", unknownRunId(), "seq", "1", "type", "finished", "at", at, "data", "{not json"],
    ["runId", unknownRunId(), "seq", "1", "type", "teleported", "at", at, "data", "{}"],
    ["junk", "no run here"],
    ["runId", unknownRunId(), "seq", "2", "type", "finished", "at", at, "data", "{}"],
  ];
}

/** Throws every kind of bad input at the cluster once. */
export async function throwBadInput(
  errand: Errand,
  redis: Redis | Cluster,
  prefix: string,
): Promise<BadInputRecord> {
  const keys = engineKeys(prefix);
  const queue = new Queue(chaosQueue(prefix), {
    connection: redis,
    prefix: keys.bullmqPrefix,
  });
  const malformed: Record<string, unknown>[] = [
    {},
    { runId: 42 },
    { runId: "not a run id: has colons" },
    { runId: unknownRunId() },
  ];
  try {
    for (const [i, data] of malformed.entries()) {
      await queue.add("run", data, { jobId: `chaos-malformed-${i}-${Date.now()}` });
    }
  } finally {
    await queue.close();
  }

  let oversizedRefused = 0;
  const oversized = [CHAOS_AGENTS.plain, CHAOS_AGENTS.structured];
  for (const agent of oversized) {
    await errand.fire({ agent, input: OVERSIZED_INPUT }).then(
      () => undefined,
      (error: unknown) => {
        if (isErrandError(error, "input_too_large")) oversizedRefused += 1;
      },
    );
  }

  const entries = poisonEntries(new Date().toISOString());
  for (const [i, fields] of entries.entries()) {
    await redis.xadd(keys.shardEvents(i % DEFAULT_SHARDS), "*", ...fields);
  }
  return {
    malformedJobs: malformed.length,
    oversizedFired: oversized.length,
    oversizedRefused,
    poisonEntries: entries.length,
  };
}

/** How many shard entries the collectors dead-lettered, over every shard. */
export async function countDeadLetters(redis: Redis | Cluster, prefix: string): Promise<number> {
  const keys = engineKeys(prefix);
  const lengths = await Promise.all(
    Array.from({ length: DEFAULT_SHARDS }, (_, shard) => redis.xlen(keys.deadLetters(shard))),
  );
  return lengths.reduce((sum, length) => sum + length, 0);
}

/** How many shard entries are still pending (delivered, neither acknowledged nor dead-lettered), over every shard. */
export async function countPendingEntries(redis: Redis | Cluster, prefix: string): Promise<number> {
  const keys = engineKeys(prefix);
  const summaries = await Promise.all(
    Array.from({ length: DEFAULT_SHARDS }, (_, shard) =>
      redis
        .xpending(keys.shardEvents(shard), DEFAULT_COLLECTOR_GROUP)
        .then((summary) => Number((summary as unknown[])[0] ?? 0))
        .catch(() => 0),
    ),
  );
  return summaries.reduce((sum, count) => sum + count, 0);
}

/** The queue of the chaos workers: every one of them runs all the chaos agents. */
export function chaosQueue(prefix: string): string {
  return queueOfAgents(prefix, Object.values(CHAOS_AGENTS));
}

/** The chaos workers' queue's job counts by state (waiting, active, delayed, failed, …). */
export async function countQueueJobs(
  redis: Redis | Cluster,
  prefix: string,
): Promise<Record<string, number>> {
  const queue = new Queue(chaosQueue(prefix), {
    connection: redis,
    prefix: engineKeys(prefix).bullmqPrefix,
  });
  try {
    return await queue.getJobCounts(
      "waiting",
      "active",
      "delayed",
      "prioritized",
      "failed",
      "completed",
    );
  } finally {
    await queue.close();
  }
}
