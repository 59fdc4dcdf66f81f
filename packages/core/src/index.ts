/**
 * `@errand/core` — the pure domain of errand.
 *
 * Everything here is deterministic and does no I/O: the event schemas of a
 * run's log, the fold that turns a log into a {@link RunState}, the settlement
 * that turns a state into a {@link RunResult}, the structured-output schema
 * preflight, the result shapes shared by the API and tools, and the error family.
 *
 * ```ts
 * import { foldRun, settleRun } from "@errand/core";
 * const result = settleRun(foldRun(events)); // undefined until the run settles
 * ```
 *
 * Every export is named here, module by module: what is not listed is internal.
 *
 * @packageDocumentation
 */
export { Batch, BatchCounts, BatchError, BatchOutcome, BatchResult, batch } from "./batch.js";
export { blobUri, parseBlobUri } from "./blob-uri.js";
export {
  BUDGET_DIMENSIONS,
  type BudgetDimension,
  BudgetLimits,
  BudgetPolicy,
  BudgetScope,
  type BudgetSpent,
  budgetRemaining,
  DEFAULT_BUDGET_POLICY,
  RunBudget,
  roundUsd,
} from "./budget.js";
export { decodeCursor, encodeCursor } from "./cursor.js";
export {
  ErrandError,
  type ErrandErrorOptions,
  type ErrorCode,
  isErrandError,
  runNotFound,
} from "./errors.js";
export {
  Cancelled,
  CancelRequested,
  EVENT_TYPES,
  EVENT_VERSION,
  EventAt,
  EventData,
  type EventDataOf,
  type EventType,
  Failed,
  Finished,
  isTerminalEventType,
  MAX_RUN_PRIORITY,
  ModelResponded,
  type NewEvent,
  OutputItem,
  OutputRecorded,
  RefusalReason,
  Refused,
  ResourceRef,
  RunError,
  RunEvent,
  type RunEventOf,
  RunLimits,
  RunParked,
  RunPriority,
  RunQueued,
  RunStarted,
  TERMINAL_EVENT_TYPES,
  type TerminalEventType,
  ToolCall,
  ToolCalled,
  ToolResult,
  TraceContext,
  Usage,
  WaitpointCompleted,
  WaitpointCreated,
  WaitpointTimedOut,
  WaitpointTimeoutAction,
} from "./events.js";
export {
  applyEvent,
  foldRun,
  initialRunState,
  isSettled,
  NO_STRUCTURED_OUTPUT_MESSAGE,
} from "./fold.js";
export { formatJsonPath, type JsonPath } from "./json-path.js";
export { resolveLocalRef } from "./json-pointer.js";
export { SCHEMA_STRING_FORMATS } from "./json-schema/limits.js";
export { compileLinearPattern, type LinearPattern } from "./linear-pattern.js";
export type { LiveDelta, LiveEntry, ModelDelta } from "./live-delta.js";
export { findLosslessJsonProblem } from "./lossless-json.js";
export { NextAction } from "./next-action.js";
export { requireWholeNumber, wholeNumberOption } from "./options.js";
export { type LimitBounds, Page, PageInfo, page, resolveLimit } from "./page.js";
export { type JsonSchemaObject, type PreflightResult, preflightSchema } from "./preflight.js";
export { type RedactOptions, redactSecrets } from "./redact-secrets.js";
export { isSecretKey, REDACTED, redactSecretText } from "./redaction.js";
export {
  createdAtOfRunId,
  isRunId,
  MAX_SHARDS,
  newRunId,
  RUN_ID_RANDOM_BYTES,
  shardOfRunId,
} from "./run-id.js";
export {
  RunBudgetView,
  RunResult,
  type RunSoFar,
  type RunWaiting,
  type RunWaitpoint,
  runSoFar,
  settleRun,
} from "./run-result.js";
export type {
  CallOutcome,
  CallState,
  RunState,
  RunStatus,
  SettledStatus,
  StepState,
  WaitpointState,
  WaitpointStatus,
} from "./run-state.js";
export { Script, ScriptAnswerTurn, ScriptCall, ScriptFailTurn, ScriptTurn } from "./script.js";
export {
  checkStoredEvent,
  decodeStoredEvent,
  type StoredEventDecoding,
  type StoredEventParts,
} from "./stored-event.js";
export {
  INLINE_VALUE_LIMIT_BYTES,
  TOOL_TEXT_LIMIT_CHARS,
  truncateText,
  utf8ByteLength,
} from "./text-limits.js";
export {
  isWaitpointOverdue,
  openWaitpoints,
  parkedWaitpoint,
  parseWaitpointToken,
  waitpointOf,
  waitpointToken,
} from "./waitpoint.js";
