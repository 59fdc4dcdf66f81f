/**
 * Reading a parent's inbox: the settled children the collector announced,
 * each once, in the order they settled. A parent that waits for its
 * children can block on the inbox with `blockMs` (a dedicated connection).
 */
import type { StreamEntry } from "@errand/store";
import type { RedisConnection } from "../connection.js";
import type { EngineKeys } from "../engine-keys.js";

/** One settled child, as announced in its parent's inbox. */
export interface InboxEntry {
  /** The inbox entry id: read on after it. */
  id: string;
  runId: string;
  agent: string;
  status: string;
  settledAt: string;
}

/** Options of {@link readInbox}. */
export interface ReadInboxOptions {
  /** Only entries after this inbox entry id. Default: from the start. */
  afterId?: string;
  /** At most this many entries. Default 100. */
  count?: number;
  /** Block up to this long for a first entry (XREAD BLOCK); the connection must be dedicated. */
  blockMs?: number;
}

function toInboxEntry([id, fields]: StreamEntry): InboxEntry {
  const map = new Map<string, string>();
  for (let i = 0; i + 1 < fields.length; i += 2) map.set(fields[i]!, fields[i + 1]!);
  return {
    id,
    runId: map.get("runId") ?? "",
    agent: map.get("agent") ?? "",
    status: map.get("status") ?? "",
    settledAt: map.get("settledAt") ?? "",
  };
}

/** The entries of `parentRunId`'s inbox after `afterId`, oldest first. */
export async function readInbox(
  redis: RedisConnection,
  keys: EngineKeys,
  parentRunId: string,
  { afterId = "0-0", count = 100, blockMs }: ReadInboxOptions = {},
): Promise<InboxEntry[]> {
  const block = blockMs === undefined ? [] : ["BLOCK", blockMs];
  const reply = (await redis.xread(
    "COUNT",
    count,
    ...(block as ["BLOCK", number]),
    "STREAMS",
    keys.inbox(parentRunId),
    afterId,
  )) as [string, StreamEntry[]][] | null;
  return (reply?.[0]?.[1] ?? []).map(toInboxEntry);
}
