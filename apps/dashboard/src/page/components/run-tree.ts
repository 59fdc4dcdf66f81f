/**
 * The tree of runs a run belongs to: nested lists from the root, each run
 * a link with its status, the current one highlighted.
 */
import type { RunTree } from "../api.js";
import { h, link } from "../dom.js";
import { shortRunId } from "../format.js";
import { statusBadge } from "./status.js";

type Node = RunTree["root"];

function renderNode(node: Node, current: string): HTMLLIElement {
  const isCurrent = node.runId === current;
  return h(
    "li",
    {},
    h(
      "div",
      {
        class: isCurrent ? "tree-node current" : "tree-node",
        testid: "tree-node",
        attrs: { "data-run-id": node.runId, "data-status": node.status },
      },
      statusBadge(node.status),
      link(`/runs/${node.runId}`, { class: "mono", title: node.runId }, shortRunId(node.runId)),
      h("span", { class: "muted" }, node.agent),
    ),
    node.children.length > 0 || node.moreChildren
      ? h(
          "ul",
          {},
          node.children.map((child) => renderNode(child, current)),
          node.moreChildren ? h("li", { class: "muted" }, "… more children not shown") : null,
        )
      : null,
  );
}

/** The tree, `current` highlighted. */
export function runTree(tree: RunTree): HTMLElement {
  return h(
    "div",
    { class: "tree", testid: "run-tree" },
    h("ul", {}, renderNode(tree.root, tree.runId)),
    h(
      "p",
      { class: "muted small" },
      `${tree.nodes} run${tree.nodes === 1 ? "" : "s"}${tree.truncated ? " (cut)" : ""}`,
    ),
  );
}
