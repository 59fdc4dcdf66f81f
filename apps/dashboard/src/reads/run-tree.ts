/**
 * The tree a run belongs to, from its root down: each node a run summary
 * with its children in the order they were created. Children come from the
 * parents' child indexes (kept by the collector), so a child appears once a
 * collector has seen it. The tree is cut at {@link TREE_LIMITS}: a node whose
 * children were not all read says so (`moreChildren`).
 */
import { runNotFound } from "@errand/core/ops";
import type { RunSummary } from "@errand/engine";
import type { DashboardContext } from "../context.js";
import { readRunSummary } from "./run-summary.js";
import { requireRunId } from "./run-view.js";

/** How much of a tree is read. */
const TREE_LIMITS = { maxNodes: 500, maxChildrenPerNode: 200 } as const;

/** One run of a tree. */
export type TreeNode = RunSummary & {
  children: TreeNode[];
  /** True when this run has children beyond those listed. */
  moreChildren: boolean;
};

/** `GET /api/runs/:runId/tree`. */
export interface RunTree {
  /** The run asked about. */
  runId: string;
  root: TreeNode;
  /** How many runs the tree holds. */
  nodes: number;
  /** True when the tree was cut at {@link TREE_LIMITS}. */
  truncated: boolean;
}

function nodeOf(summary: RunSummary): TreeNode {
  return { ...summary, children: [], moreChildren: false };
}

/** Reads the tree of `runId`'s root. Throws `invalid_spec` or `not_found`. */
export async function readRunTree(context: DashboardContext, runId: string): Promise<RunTree> {
  const run = await readRunSummary(context, requireRunId(runId));
  if (run === undefined) throw runNotFound(runId);
  const rootSummary =
    run.rootRunId === run.runId ? run : await readRunSummary(context, run.rootRunId);
  const root = nodeOf(rootSummary ?? run);
  let nodes = 1;
  let truncated = false;
  let level = [root];
  while (level.length > 0) {
    const next: TreeNode[] = [];
    for (const parent of level) {
      const budget = Math.min(TREE_LIMITS.maxChildrenPerNode, TREE_LIMITS.maxNodes - nodes);
      const children = await context.errand.list({
        parentRunId: parent.runId,
        limit: Math.max(budget, 1),
      });
      if (budget <= 0) {
        parent.moreChildren = children.count > 0;
        truncated ||= parent.moreChildren;
        continue;
      }
      parent.children = children.items.reverse().map(nodeOf);
      parent.moreChildren = children.hasMore;
      truncated ||= children.hasMore;
      nodes += parent.children.length;
      next.push(...parent.children);
    }
    level = next;
  }
  return { runId, root, nodes, truncated };
}
