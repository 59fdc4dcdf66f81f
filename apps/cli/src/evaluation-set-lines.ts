/**
 * How `errand eval sets` prints saved run sets for people: a table of them,
 * and one set with its runIds.
 */
import type { EvaluationSet } from "@errand/engine";
import { formatTable } from "./table.js";

/** What a set was saved from, in one line: its runIds given, or its filter as JSON. */
function savedFrom(set: EvaluationSet): string {
  return "runIds" in set.runs
    ? `${set.runs.runIds.length} runIds`
    : `filter ${JSON.stringify(set.runs.filter)}`;
}

/** The saved sets, as a table. */
export function evaluationSetListLines(sets: readonly EvaluationSet[]): string[] {
  if (sets.length === 0) return ["no saved run set: errand eval sets save <name> saves one"];
  return formatTable([
    ["set", "runs", "saved from", "created"],
    ...sets.map((set) => [set.name, String(set.runIds.length), savedFrom(set), set.createdAt]),
  ]);
}

/** One set: its name, what it was saved from and when, then its runIds, one a line. */
export function evaluationSetLines(set: EvaluationSet): string[] {
  return [
    `set        ${set.name}`,
    `saved from ${savedFrom(set)}, ${set.createdAt}`,
    `runs       ${set.runIds.length}`,
    "",
    ...set.runIds,
  ];
}
