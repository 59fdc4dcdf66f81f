/**
 * The tokens of the runs in a list: each settled run's `usage` from its
 * stored result (the fold the collector stored), the results of a page read
 * together. A run still queued or running has none here: its page shows its
 * tokens so far.
 */
import type { Usage } from "@errand/core";
import type { RunSummary } from "@errand/engine";
import { readStoredResults } from "@errand/store";
import type { DashboardContext } from "../context.js";

/** A run of a list with its tokens, once it has settled. */
export type RunWithUsage<T extends RunSummary = RunSummary> = T & { usage?: Usage };

const isSettled = (run: RunSummary) => run.status !== "queued" && run.status !== "running";

/** `page` with the `usage` of each of its settled runs. */
export async function withUsage<T extends RunSummary, P extends { items: T[] }>(
  context: DashboardContext,
  page: P,
): Promise<P & { items: RunWithUsage<T>[] }> {
  const settled = page.items.filter(isSettled);
  const results = await readStoredResults(
    context,
    settled.map((run) => run.runId),
  );
  const usage = new Map(
    results.flatMap((result) => (result === undefined ? [] : [[result.runId, result.usage]])),
  );
  const items = page.items.map((run) => {
    const tokens = usage.get(run.runId);
    return tokens === undefined ? run : { ...run, usage: tokens };
  });
  return { ...page, items };
}
