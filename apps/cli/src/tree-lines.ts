/**
 * A run tree for people, drawn like `tree`: the root on the first line, each
 * run under its parent behind box-drawing branches (`├──`, `└──`, `│`), one
 * line per run with its runId, agent and status — and the error code of a
 * run that failed or was cancelled — the status painted in its colour.
 */
import { type Paint, STATUS_STYLE } from "./colour.js";
import type { RunTreeNode } from "./run-tree.js";

/** One run's line, without its branch. */
function runLine(run: RunTreeNode, paint: Paint): string {
  const style = STATUS_STYLE[run.status];
  const status = run.error === undefined ? run.status : `${run.status} (${run.error.code})`;
  return `${run.runId}  ${run.agent}  ${paint(style, status)}`;
}

function childLines(children: readonly RunTreeNode[], indent: string, paint: Paint): string[] {
  return children.flatMap((child, i) => {
    const last = i === children.length - 1;
    const branch = paint("dim", last ? "└── " : "├── ");
    const below = indent + (last ? "    " : paint("dim", "│   "));
    return [
      `${indent}${branch}${runLine(child, paint)}`,
      ...childLines(child.children, below, paint),
    ];
  });
}

/** The lines of the tree under `root`, painted with `paint`. */
export function treeLines(root: RunTreeNode, paint: Paint): string[] {
  return [runLine(root, paint), ...childLines(root.children, "", paint)];
}
