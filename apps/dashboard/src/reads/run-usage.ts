/**
 * The tokens and cost of the runs in a list: each settled run's `usage` and
 * `costUsd` (when its worker priced it) from its stored result (the fold the
 * collector stored), the results of a page read together. A run still queued
 * or running has none here: its page shows its tokens and cost so far.
 */
import type { Usage } from "@errand/core";
import type { RunSummary } from "@errand/engine";
import { readStoredResults } from "@errand/store/ops";
import type { DashboardContext } from "../context.js";

/** A run of a list with its tokens and its cost in US dollars (when priced), once it has settled. */
export type RunWithUsage<T extends RunSummary = RunSummary> = T & {
  usage?: Usage;
  costUsd?: number;
};

const isSettled = (run: RunSummary) => run.status !== "queued" && run.status !== "running";

/** `page` with the `usage` and `costUsd` of each of its settled runs. */
export async function withUsage<T extends RunSummary, P extends { items: T[] }>(
  context: DashboardContext,
  page: P,
): Promise<P & { items: RunWithUsage<T>[] }> {
  const settled = page.items.filter(isSettled);
  const results = await readStoredResults(
    context,
    settled.map((run) => run.runId),
  );
  const spend = new Map(
    results.flatMap((result) =>
      result === undefined
        ? []
        : [
            [
              result.runId,
              {
                usage: result.usage,
                ...(result.costUsd === undefined ? {} : { costUsd: result.costUsd }),
              },
            ],
          ],
    ),
  );
  const items = page.items.map((run) => {
    const spent = spend.get(run.runId);
    return spent === undefined ? run : { ...run, ...spent };
  });
  return { ...page, items };
}
