/**
 * The one shape of every tool answer (docs/architecture/mcp.md#answers): a
 * single text block holding the result's JSON, so what the model reads and
 * what a program parses are the same bytes; an error is the same with
 * `isError: true` and `{ error: { code, message, retryable, fix, issues? } }`,
 * arguments off a tool's input schema included.
 * Never a stack: an error that is not errand's own is logged by the server
 * and answered as `internal`.
 */
import { type ErrorCode, isErrandError } from "@errand/core";
import { locateIssues } from "@errand/runtime/ops";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";

/** An answer holding `value`. */
export function answerOf(value: unknown): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(value) }] };
}

/** What to do about each code an MCP caller can meet. */
const FIXES: Partial<Record<ErrorCode, string>> = {
  invalid_spec: "correct the arguments named in the message and call again",
  invalid_input:
    "change the input so that it matches the agent's inputSchema (list_agents shows it)",
  unknown_agent: "call list_agents and use one of the names it lists",
  unsupported_schema:
    "use a JSON Schema of the supported subset: objects with every property required and additionalProperties false",
  schema_not_supported: "fire without outputSchema, or pick an agent whose model calls tools",
  input_too_large: "send a smaller input",
  not_found: "check the runId or token; a run expires after its retention",
  invalid_answer: "answer with a value matching the answerSchema that list_waiting shows",
  waitpoint_answered: "nothing to do: it was answered already",
  waitpoint_timeout: "nothing to do: the waitpoint timed out and its run went on",
  run_settled: "nothing to do: the run has settled",
  limit_exceeded: "send fewer items",
  redis_unavailable: "call again in a few seconds; if it lasts, check the server's Redis",
  redis_out_of_memory: "call again later; the server's Redis is full",
  forbidden: "use a key whose scopes and agents allow this call (errand keys create)",
  internal: "call again; if it lasts, report it with the time of the call",
};

/**
 * What to do about an item refused after its run `runId` was started all
 * the same (a run no replica confirmed in time, with `durability:
 * "replicated"`): send it again under its idempotency key, which answers that
 * run; without one, wait for it, as sending it again starts a second run.
 */
export function startedRunFix(runId: string, keyed: boolean): string {
  return keyed
    ? `run ${runId} was started: send this item again with the same idempotencyKey (retryAction does) to confirm it; that answers this run, not a second one`
    : `run ${runId} was started: wait_runs follows it; sending this item again starts a second run`;
}

/** What to do about an error of `code`. */
export function fixOf(code: string): string {
  return FIXES[code as ErrorCode] ?? "read the message, correct the call and call again";
}

/** The error answer of one `code`. */
function errorAnswer(
  code: string,
  message: string,
  options: { retryable?: boolean; issues?: unknown } = {},
): CallToolResult {
  const fix = fixOf(code);
  const issues = options.issues === undefined ? {} : { issues: options.issues };
  const error = { code, message, retryable: options.retryable ?? false, fix, ...issues };
  return { isError: true, content: [{ type: "text", text: JSON.stringify({ error }) }] };
}

/** The most issues an argument refusal's message lists (its `issues` hold them all). */
const ISSUES_IN_MESSAGE = 5;

/**
 * The answer to a call of `tool` whose arguments do not match its input
 * schema: `invalid_spec`, not retryable, the message naming the first few
 * fields and what is wrong with each, `issues` all of them (`{ path,
 * message }`, `$` for the arguments themselves).
 */
export function invalidArgumentsAnswer(
  tool: string,
  zodIssues: readonly z.core.$ZodIssue[],
): CallToolResult {
  const issues = locateIssues(zodIssues);
  const listed = issues
    .slice(0, ISSUES_IN_MESSAGE)
    .map(({ path, message }) => `${path}: ${message}`);
  const more =
    issues.length > ISSUES_IN_MESSAGE ? ` (and ${issues.length - ISSUES_IN_MESSAGE} more)` : "";
  return errorAnswer(
    "invalid_spec",
    `invalid arguments for ${tool}: ${listed.join("; ")}${more}; tools/list shows its input schema`,
    { issues },
  );
}

/** The answer to a call of a tool errand does not have, naming the ones it has. */
export function unknownToolAnswer(name: string, tools: readonly string[]): CallToolResult {
  return errorAnswer(
    "invalid_spec",
    `no tool ${JSON.stringify(name)}: errand's tools are ${tools.join(", ")}`,
  );
}

/** Where a tool's unexpected errors are told: the server's log, never the caller. */
export type ReportUnexpected = (error: unknown, tool: string) => void;

/**
 * The error answer of a thrown `error`: errand's own with its code,
 * `retryable` and issues; anything else reported through `report` and
 * answered `internal`, without its message or stack.
 */
export function thrownAnswer(
  error: unknown,
  tool: string,
  report: ReportUnexpected,
): CallToolResult {
  if (isErrandError(error)) {
    return errorAnswer(error.code, error.message, {
      retryable: error.retryable,
      issues: error.details?.issues,
    });
  }
  report(error, tool);
  return errorAnswer("internal", `${tool} failed on the server`, { retryable: true });
}

/**
 * The bytes `value`'s answer takes as a JSON-RPC response (with an id of up
 * to 20 characters): what `ANSWER_BYTE_BUDGET` bounds.
 */
export function answerBytes(value: unknown): number {
  const envelope = { result: answerOf(value), jsonrpc: "2.0", id: "12345678901234567890" };
  return Buffer.byteLength(JSON.stringify(envelope));
}

/** A failed batch item's outcome: `ok: false`, its error with the fix, and `retryable`. */
export interface ItemFailure {
  ok: false;
  error: { code: string; message: string; fix: string };
  retryable: boolean;
}

/** The failure of one batch item: errand's own error as it is, anything else reported and `internal`. */
export function itemFailure(error: unknown, tool: string, report: ReportUnexpected): ItemFailure {
  if (isErrandError(error)) {
    return {
      ok: false,
      error: { code: error.code, message: error.message, fix: fixOf(error.code) },
      retryable: error.retryable,
    };
  }
  report(error, tool);
  return {
    ok: false,
    error: { code: "internal", message: `${tool} failed on the server`, fix: fixOf("internal") },
    retryable: true,
  };
}
