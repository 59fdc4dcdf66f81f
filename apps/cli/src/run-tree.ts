/**
 * A run and its descendants as a tree, read through the engine's public
 * reads: the run's head and result for the run itself, and `list({
 * parentRunId })`, page after page, for each run's children. A child appears
 * once a collector has indexed it (as in `errand runs list --parent`).
 */
import { runNotFound } from "@errand/core/ops";
import type { Errand, RunSummary } from "@errand/engine";
import { LIST_LIMITS, runSummaryOf } from "@errand/engine/ops";

/** One run of a tree: its summary and its children, oldest first. */
export interface RunTreeNode extends RunSummary {
  children: RunTreeNode[];
}

/**
 * The summary of run `runId`. Throws `invalid_spec` for a malformed runId
 * and `not_found` for a run that was never fired or has expired.
 */
async function summaryOf(errand: Errand, runId: string): Promise<RunSummary> {
  const result = await errand.result(runId);
  const head = await errand.store.readHead(runId);
  if (head === undefined) {
    throw runNotFound(runId);
  }
  const summary = runSummaryOf(head, null);
  const code = result?.error?.code;
  return code === undefined ? summary : { ...summary, error: { code } };
}

/** Every child of `parentRunId` the indexes know, oldest first. */
async function childrenOf(errand: Errand, parentRunId: string): Promise<RunSummary[]> {
  const children: RunSummary[] = [];
  let cursor: string | undefined;
  do {
    const page = await errand.list({
      parentRunId,
      limit: LIST_LIMITS.max,
      ...(cursor === undefined ? {} : { cursor }),
    });
    children.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return children.reverse();
}

async function growTree(errand: Errand, run: RunSummary): Promise<RunTreeNode> {
  const children = await childrenOf(errand, run.runId);
  return { ...run, children: await Promise.all(children.map((child) => growTree(errand, child))) };
}

/**
 * The tree under run `runId`: the run, its children, their children, …
 * Throws `invalid_spec` for a malformed runId and `not_found` for an
 * unknown run.
 */
export async function readRunTree(errand: Errand, runId: string): Promise<RunTreeNode> {
  return growTree(errand, await summaryOf(errand, runId));
}
