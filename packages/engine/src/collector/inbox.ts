/**
 * A parent's inbox: a STREAM in the parent's shard where each settled child
 * is announced exactly once (`lua/append-inbox-2.lua` dedupes redeliveries).
 * Entry fields: `runId` (the child), `agent`, `status`, `settledAt`. The full
 * result is at the child's `result:<runId>`. A parent can wait on its inbox
 * with a blocking XREAD.
 */
import type { RunResult } from "@errand/core";
import type { CollectorContext } from "./context.js";

/** The fields of the inbox entry announcing `result`, as name/value pairs. */
export function inboxEntryFields(result: RunResult): string[] {
  return [
    "runId",
    result.runId,
    "agent",
    result.agent,
    "status",
    result.status,
    "settledAt",
    result.settledAt ?? "",
  ];
}

/**
 * Announces the settled child `result` in its parent's inbox unless it was
 * announced before. Resolves true when this call announced it. Does nothing
 * (false) for a run without a parent.
 */
export async function announceToParent(
  context: CollectorContext,
  result: RunResult,
): Promise<boolean> {
  const { parentRunId } = result;
  if (parentRunId === undefined) return false;
  const { keys, scripts, retentionSeconds } = context;
  const reply = await scripts.appendInbox(
    [keys.inbox(parentRunId), keys.inboxSeen(parentRunId)],
    [result.runId, retentionSeconds, ...inboxEntryFields(result)],
  );
  return reply === 1;
}
