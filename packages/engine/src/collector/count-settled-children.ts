/**
 * Children counted as they settle (docs/architecture/tool-results.md#fan-out-at-a-flat-cost-per-child):
 * before a batch's index call stores the results of the runs it settles
 * and acknowledges their entries, each settled run that has a parent is
 * counted in that parent's children counts, one script call a parent
 * (`lua/count-children-2.lua`, on the parent's shard: on Redis Cluster a
 * child's keys and its parent's are in different slots, so the child's own
 * call cannot write them). The script counts a child only while it is in
 * the parent's pending children, and takes it out as it counts it, so an
 * entry delivered again counts nothing more; the count is written before the
 * entry is acknowledged, so a collector dying between the two loses none.
 */
import type { RunResult } from "@errand/core";
import { addToGroup } from "../add-to-group.js";
import { retryWhileRedisIsTransient } from "../redis/transient-redis.js";
import type { CollectorContext } from "./context.js";

/** A run settled by a batch, with its result. */
export interface SettledChild {
  runId: string;
  result: RunResult;
}

/**
 * Counts the children among `settled` in their parents' counts, one call a
 * parent, all at once. Resolves with the runIds whose count could not be
 * written (their entries must stay pending, to be counted when delivered
 * again); a Redis out of memory is waited out.
 */
export async function countSettledChildren(
  context: CollectorContext,
  settled: readonly SettledChild[],
): Promise<Set<string>> {
  const byParent = new Map<string, SettledChild[]>();
  for (const child of settled) {
    const parent = child.result.parentRunId;
    if (parent !== undefined) addToGroup(byParent, parent, child);
  }
  const failed = new Set<string>();
  const keepMs = context.store.retentionSeconds * 1000;
  await Promise.all(
    [...byParent].map(async ([parent, children]) => {
      const keys = [context.keys.childrenPending(parent), context.keys.childrenCounts(parent)];
      const args = [keepMs, ...children.flatMap(({ runId, result }) => [runId, result.status])];
      try {
        await retryWhileRedisIsTransient(() => context.scripts.countChildren(keys, args), {
          logger: context.logger,
          write: "counts of a parent's settled children",
          fields: { parentRunId: parent, children: children.length },
          signal: context.stopping,
        });
      } catch (error) {
        context.logger.warn(
          { parentRunId: parent, error: String(error) },
          "could not count a parent's settled children; their entries stay pending",
        );
        for (const { runId } of children) failed.add(runId);
      }
    }),
  );
  return failed;
}
