/**
 * Validation issues as lines a model can act on: where (a JSON path, `$` for
 * the arguments themselves) and what is wrong, one line per problem, union
 * alternatives spelled out.
 */
import { formatJsonPath } from "@errand/core/ops";
import type { z } from "zod";

type Issue = z.core.$ZodIssue;

function where(path: readonly PropertyKey[]): string {
  const segments = path.map((key) => (typeof key === "symbol" ? String(key) : key));
  return formatJsonPath(segments, "$");
}

function problem(issue: Issue): string {
  if (issue.code === "invalid_union" && issue.errors.length > 0) {
    const alternatives = issue.errors.map((branch) => branch.map(describe).join(", "));
    return `matches none of the allowed alternatives: ${alternatives.join(" | ")}`;
  }
  return issue.message.replace(/^Invalid input: /, "");
}

function describe(issue: Issue): string {
  return issue.path.length === 0 ? problem(issue) : `${where(issue.path)}: ${problem(issue)}`;
}

/** Where one issue is (a JSON path, `$` for the value itself) and what is wrong there. */
export interface LocatedIssue {
  path: string;
  message: string;
}

/** Each issue as a {@link LocatedIssue}, e.g. `{ path: "age", message: "expected number, received string" }`. */
export function locateIssues(issues: readonly Issue[]): LocatedIssue[] {
  return issues.map((issue) => ({ path: where(issue.path), message: problem(issue) }));
}

/** One line per issue: `<path>: <problem>`, e.g. `age: expected number, received string`. */
export function formatIssues(issues: readonly Issue[]): string[] {
  return locateIssues(issues).map(({ path, message }) => `${path}: ${message}`);
}

/**
 * The refusal a model reads when its arguments do not validate: what was
 * wrong with which call, one issue per line, and that it should call again.
 */
export function fixAndRetryMessage(
  tool: string,
  problem: string,
  issues: readonly string[],
): string {
  const lines = issues.map((issue) => `- ${issue}`).join("\n");
  return `Error: ${problem}. Fix these issues and call ${tool} again:\n${lines}`;
}
