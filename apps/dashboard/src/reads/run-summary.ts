/**
 * One run's summary read by id, in the shape `list` gives its items
 * (`RunSummary`), for the runs a list does not bring: a run looked up by
 * its runId, the root of a tree.
 */
import type { RunSummary } from "@errand/engine";
import { runSummaryOf } from "@errand/engine/ops";
import type { DashboardContext } from "../context.js";

/** The run's summary, or `undefined` for an unknown (or expired) run. */
export async function readRunSummary(
  context: DashboardContext,
  runId: string,
): Promise<RunSummary | undefined> {
  const [head, stored] = await Promise.all([
    context.errand.store.readHead(runId),
    context.patiently("read of a run's result", () =>
      context.redis.get(context.keys.result(runId)),
    ),
  ]);
  return head === undefined ? undefined : runSummaryOf(head, stored);
}
