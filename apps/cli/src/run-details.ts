/**
 * One run for people: its fields as aligned `name  value` lines.
 */
import type { RunSoFar } from "@errand/core";
import { jsonText } from "./output.js";
import { formatTable } from "./table.js";

const VALUE_WIDTH = 200;

/**
 * What is known of a run: its result once settled, or the same fields so
 * far; `viewUrl` when a dashboard URL is configured.
 */
export type ShownRun = RunSoFar & { viewUrl?: string };

/** The lines describing `run`. */
export function runDetails(run: ShownRun): string[] {
  const rows: [string, string | undefined][] = [
    ["run", run.runId],
    ["agent", run.agent],
    ["status", run.status],
    ["waiting", run.waiting && `${run.waiting.reason} (parked since ${run.waiting.since})`],
    ["output", run.output === undefined ? undefined : jsonText(run.output)],
    ["text", run.text],
    ["error", run.error && `${run.error.code}: ${run.error.message}`],
    ["parent", run.parentRunId],
    ["root", run.rootRunId === run.runId ? undefined : run.rootRunId],
    ["steps", String(run.steps)],
    ["attempts", String(run.attempts)],
    ["usage", `${run.usage.inputTokens} input + ${run.usage.outputTokens} output tokens`],
    ["created", run.createdAt],
    ["started", run.startedAt],
    ["settled", run.settledAt],
    ["view", run.viewUrl],
  ];
  const shown = rows.filter((row): row is [string, string] => row[1] !== undefined);
  return formatTable(shown, [undefined, VALUE_WIDTH]);
}
