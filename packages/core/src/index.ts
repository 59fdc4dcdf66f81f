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
 * Every export is named here, module by module: what is not listed is
 * internal, or `@errand/core/ops` — helpers errand's own packages and apps
 * share, without a semver promise.
 *
 * @packageDocumentation
 */
export { Batch, BatchCounts, BatchError, BatchOutcome, BatchResult } from "./batch.js";
export {
  BUDGET_DIMENSIONS,
  type BudgetDimension,
  BudgetLimits,
  BudgetPolicy,
  BudgetScope,
  type BudgetSpent,
  RunBudget,
} from "./budget.js";
export { ErrandError, type ErrandErrorOptions, type ErrorCode, isErrandError } from "./errors.js";
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
export { applyEvent, foldRun, initialRunState, isSettled } from "./fold.js";
export type { LiveDelta, LiveEntry, ModelDelta } from "./live-delta.js";
export { NextAction } from "./next-action.js";
export { Page, PageInfo } from "./page.js";
export { type JsonSchemaObject, type PreflightResult, preflightSchema } from "./preflight.js";
export { type RedactOptions, redactSecrets } from "./redact-secrets.js";
export { isSecretKey, REDACTED, redactSecretText } from "./redaction.js";
export { newRunId } from "./run-id.js";
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
