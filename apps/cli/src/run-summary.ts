/**
 * How a settled run reads in one cell: its output, its text or its error.
 */
import type { RunResult } from "@errand/core";
import { jsonText } from "./output.js";

/** The output (as JSON), the closing text, or `code: message` of the error. */
export function outcomeOf(result: RunResult): string {
  if (result.status === "succeeded") {
    return result.output !== undefined ? jsonText(result.output) : (result.text ?? "");
  }
  if (result.error !== undefined) return `${result.error.code}: ${result.error.message}`;
  return result.status;
}

/** Counts of settled runs by status. */
export interface StatusCounts {
  total: number;
  succeeded: number;
  failed: number;
  cancelled: number;
}

/** How many of `results` ended in each status. */
export function countStatuses(results: readonly RunResult[]): StatusCounts {
  const count = (status: RunResult["status"]) => results.filter((r) => r.status === status).length;
  return {
    total: results.length,
    succeeded: count("succeeded"),
    failed: count("failed"),
    cancelled: count("cancelled"),
  };
}
