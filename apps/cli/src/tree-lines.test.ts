import { describe, expect, it } from "vitest";
import { ANSI_PAINT, PLAIN_PAINT } from "./colour.js";
import type { RunTreeNode } from "./run-tree.js";
import { treeLines } from "./tree-lines.js";

function node(
  runId: string,
  status: RunTreeNode["status"],
  children: RunTreeNode[] = [],
  code?: string,
): RunTreeNode {
  return {
    runId,
    agent: children.length > 0 ? "lead" : "worker",
    status,
    rootRunId: "R1",
    createdAt: "2025-01-01T00:00:00.000Z",
    ...(code === undefined ? {} : { error: { code } }),
    children,
  };
}

const TREE = node("R1", "succeeded", [
  node("R2", "failed", [], "no_structured_output"),
  node("R3", "running", [node("R4", "queued"), node("R5", "cancelled", [], "cancelled")]),
  node("R6", "succeeded"),
]);

describe("treeLines", () => {
  it("draws each run under its parent with box-drawing branches", () => {
    expect(treeLines(TREE, PLAIN_PAINT)).toEqual([
      "R1  lead  succeeded",
      "├── R2  worker  failed (no_structured_output)",
      "├── R3  lead  running",
      "│   ├── R4  worker  queued",
      "│   └── R5  worker  cancelled (cancelled)",
      "└── R6  worker  succeeded",
    ]);
  });

  it("paints the statuses in their colours and the branches dim", () => {
    const lines = treeLines(TREE, ANSI_PAINT);
    expect(lines[0]).toBe("R1  lead  \x1b[32msucceeded\x1b[39m");
    expect(lines[1]).toBe(
      "\x1b[2m├── \x1b[22mR2  worker  \x1b[31mfailed (no_structured_output)\x1b[39m",
    );
    expect(lines[4]).toBe(
      "\x1b[2m│   \x1b[22m\x1b[2m└── \x1b[22mR5  worker  \x1b[33mcancelled (cancelled)\x1b[39m",
    );
  });

  it("draws a run without children on one line", () => {
    expect(treeLines(node("R9", "succeeded"), PLAIN_PAINT)).toEqual(["R9  worker  succeeded"]);
  });
});
