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
export {
  Batch,
  BatchCounts,
  BatchError,
  BatchOutcome,
  BatchResult,
  batch,
} from "./batch.js";
export {
  type BlobAddress,
  blobUri,
  parseBlobUri,
} from "./blob-uri.js";
export {
  BUDGET_DIMENSIONS,
  type BudgetDimension,
  BudgetLimits,
  BudgetPolicy,
  BudgetScope,
  type BudgetSpent,
  budgetRemaining,
  DEFAULT_BUDGET_POLICY,
  innermostScope,
  RunBudget,
  roundUsd,
} from "./budget.js";
export {
  CURSOR_VERSION,
  decodeCursor,
  encodeCursor,
} from "./cursor.js";
export {
  ERROR_CODES,
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
export {
  formatJsonPath,
  type JsonPath,
} from "./json-path.js";
export { resolveLocalRef } from "./json-pointer.js";
export {
  SCHEMA_LARGE_ENUM_VALUES,
  SCHEMA_MAX_ENUM_VALUES,
  SCHEMA_MAX_JSON_CHARS,
  SCHEMA_MAX_JSON_NESTING,
  SCHEMA_MAX_LARGE_ENUM_CHARS,
  SCHEMA_MAX_OBJECT_DEPTH,
  SCHEMA_MAX_PROPERTIES,
  SCHEMA_MAX_SCHEMA_DEPTH,
  SCHEMA_MAX_TOTAL_CHARS,
  SCHEMA_STRING_FORMATS,
} from "./json-schema-limits.js";
export {
  compileLinearPattern,
  type LinearPattern,
  type LinearPatternCompilation,
} from "./linear-pattern.js";
export type { LiveDelta, LiveEntry, ModelDelta } from "./live-delta.js";
export {
  findLosslessJsonProblem,
  type LosslessJsonOptions,
  type LosslessJsonProblem,
} from "./lossless-json.js";
export { NextAction } from "./next-action.js";
export {
  requireWholeNumber,
  wholeNumberOption,
} from "./options.js";
export {
  type LimitBounds,
  Page,
  PageInfo,
  type PageOptions,
  page,
  resolveLimit,
} from "./page.js";
export {
  type JsonSchemaObject,
  type PreflightResult,
  preflightSchema,
  UNSUPPORTED_SCHEMA_PREFIX,
} from "./preflight.js";
export {
  isSecretKey,
  REDACTED,
  type RedactOptions,
  redactSecrets,
  redactSecretText,
  SECRET_KEY_ENDINGS,
  SECRET_KEY_WORDS,
} from "./redaction.js";
export {
  createdAtOfRunId,
  isRunId,
  MAX_RUN_ID_TIME_MS,
  MAX_SHARDS,
  type NewRunIdInput,
  newRunId,
  RUN_ID_LENGTH,
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
export {
  Script,
  ScriptAnswerTurn,
  ScriptCall,
  ScriptFailTurn,
  ScriptTurn,
} from "./script.js";
export {
  checkStoredEvent,
  decodeStoredEvent,
  type StoredEventDecoding,
  type StoredEventFields,
  type StoredEventParts,
} from "./stored-event.js";
export {
  INLINE_VALUE_LIMIT_BYTES,
  TOOL_TEXT_LIMIT_CHARS,
  type TruncatedText,
  truncateText,
  utf8ByteLength,
} from "./text-limits.js";
export {
  isWaitpointOverdue,
  isWaitpointToken,
  openWaitpoints,
  parkedWaitpoint,
  parseWaitpointToken,
  type WaitpointAddress,
  waitpointOf,
  waitpointToken,
} from "./waitpoint.js";
