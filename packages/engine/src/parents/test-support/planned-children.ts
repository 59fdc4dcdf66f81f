/**
 * Children planned to end in each way docs/architecture/structured-output.md describes, as spawn items
 * for the test's child agent, each with the outcome `collect` must report
 * for it. Test-only: not exported.
 */
import { CHILD, childOutputSchema } from "./parent-fixture.js";

/** How a planned child ends. */
type ChildKind =
  | "recorded"
  | "invalid-then-recorded"
  | "no-output"
  | "model-failure"
  | "slow-cancelled";

/** What `collect` must report for a child. */
export interface ExpectedOutcome {
  status: "succeeded" | "failed" | "cancelled";
  output?: { answer: string };
  code?: string;
}

/** One planned child: its kind, the item that spawns it and its expected outcome. */
export interface PlannedChild {
  kind: ChildKind;
  item: { agent: string; input: { script: unknown[] }; outputSchema: Record<string, unknown> };
  expected: ExpectedOutcome;
}

const record = (answer: unknown) => ({ call: [{ tool: "structured_output", args: { answer } }] });

function plan(kind: ChildKind, index: number): Omit<PlannedChild, "item"> & { script: unknown[] } {
  switch (kind) {
    case "recorded":
      return {
        kind,
        script: [record(`child ${index}`)],
        expected: { status: "succeeded", output: { answer: `child ${index}` } },
      };
    case "invalid-then-recorded":
      return {
        kind,
        script: [record(index), record(`fixed ${index}`)],
        expected: { status: "succeeded", output: { answer: `fixed ${index}` } },
      };
    case "no-output":
      return {
        kind,
        script: [{ say: `forgot the tool, child ${index}` }],
        expected: { status: "failed", code: "no_structured_output" },
      };
    case "model-failure":
      return {
        kind,
        script: [{ fail: "the model refused the request", status: 400 }],
        expected: { status: "failed", code: "model_error" },
      };
    case "slow-cancelled":
      return {
        kind,
        script: [{ say: "too slow", sleepMs: 60_000 }],
        expected: { status: "cancelled", code: "cancelled" },
      };
  }
}

const CYCLE: readonly ChildKind[] = [
  "recorded",
  "invalid-then-recorded",
  "no-output",
  "model-failure",
];

/** `count` children: the first slow (the test cancels it once started), the others cycling through the other endings. */
export function planChildren(count: number): PlannedChild[] {
  return Array.from({ length: count }, (_, index) => {
    const kind = index === 0 ? "slow-cancelled" : CYCLE[(index - 1) % CYCLE.length]!;
    const { script, ...rest } = plan(kind, index);
    return {
      ...rest,
      item: { agent: CHILD, input: { script }, outputSchema: childOutputSchema },
    };
  });
}

/** The counts `collect` must report for `children`. */
export function expectedCounts(children: readonly PlannedChild[]) {
  const count = (status: ExpectedOutcome["status"]) =>
    children.filter((child) => child.expected.status === status).length;
  return {
    total: children.length,
    succeeded: count("succeeded"),
    failed: count("failed"),
    cancelled: count("cancelled"),
  };
}
