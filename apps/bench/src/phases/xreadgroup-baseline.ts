/**
 * Baseline: raw Redis streams. The same number of entries as the collector's
 * backlog, with the same fields (copied from errand's shard streams), spread
 * over the same number of streams; one loop per stream, as the collector
 * has, each on its own connection: `XREADGROUP … COUNT <batch> STREAMS s >`
 * then one `XACK` of the batch, until the stream is drained. Nothing is
 * done with an entry: this is the floor under any consumer group reader.
 */
import { ErrandError } from "@errand/core";
import { Redis } from "ioredis";
import type { BenchRedis } from "../bench-redis.js";
import { type CpuPerUnit, cpuPerUnit, startCpuMeter } from "../cpu-meter.js";
import { perSecond } from "../stats.js";

/** What the XREADGROUP baseline measured. */
export interface XreadgroupBaseline {
  /** Entries read and acknowledged per second. */
  eventsPerSec: number;
  /** CPU per entry. */
  cpu: CpuPerUnit;
}

/** What the baseline reads: how many entries, over how many streams, with which fields. */
export interface StreamBacklog {
  entries: number;
  streams: number;
  /** Entries read per XREADGROUP: the collector's batch size. */
  batchSize: number;
  /** Field lists of real entries, written round-robin. */
  sampleFields: readonly (readonly string[])[];
}

const GROUP = "bench";
const WRITE_BATCH = 1_000;

function streamKey(index: number): string {
  return `bench:{s${index}}:events`;
}

type GroupReply = [string, [string, string[]][]][] | null;

/** Writes the backlog and creates the group on each stream, reading from the start. */
async function prepare(redis: Redis, backlog: StreamBacklog): Promise<void> {
  for (let first = 0; first < backlog.entries; first += WRITE_BATCH) {
    const pipeline = redis.pipeline();
    for (let n = first; n < Math.min(first + WRITE_BATCH, backlog.entries); n += 1) {
      const fields = backlog.sampleFields[n % backlog.sampleFields.length]!;
      pipeline.xadd(streamKey(n % backlog.streams), "*", ...fields);
    }
    await pipeline.exec();
  }
  for (let index = 0; index < backlog.streams; index += 1) {
    await redis.xgroup("CREATE", streamKey(index), GROUP, "0", "MKSTREAM");
  }
}

/** Reads and acknowledges one stream until it is drained; resolves with the entries read. */
async function drain(connection: Redis, stream: string, batchSize: number): Promise<number> {
  let read = 0;
  for (;;) {
    const reply = (await connection.xreadgroup(
      "GROUP",
      GROUP,
      "reader",
      "COUNT",
      batchSize,
      "STREAMS",
      stream,
      ">",
    )) as GroupReply;
    const entries = reply?.[0]?.[1] ?? [];
    if (entries.length === 0) return read;
    await connection.xack(stream, GROUP, ...entries.map(([id]) => id));
    read += entries.length;
  }
}

/** Measures reading and acknowledging `backlog` through a consumer group. */
export async function measureXreadgroup(
  redis: BenchRedis,
  backlog: StreamBacklog,
): Promise<XreadgroupBaseline> {
  await redis.flush();
  await prepare(redis.admin, backlog);
  const connections = Array.from(
    { length: backlog.streams },
    () => new Redis(redis.url, { maxRetriesPerRequest: null }),
  );
  try {
    await Promise.all(connections.map((connection) => connection.ping()));
    const meter = await startCpuMeter(redis.admin);
    const start = performance.now();
    const counts = await Promise.all(
      connections.map((connection, index) =>
        drain(connection, streamKey(index), backlog.batchSize),
      ),
    );
    const elapsed = performance.now() - start;
    const spent = await meter.read();
    const read = counts.reduce((sum, count) => sum + count, 0);
    if (read !== backlog.entries) {
      throw new ErrandError("internal", `XREADGROUP read ${read} entries of ${backlog.entries}`);
    }
    return { eventsPerSec: perSecond(read, elapsed), cpu: cpuPerUnit(spent, read) };
  } finally {
    for (const connection of connections) connection.disconnect();
  }
}
