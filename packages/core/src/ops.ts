/**
 * `@errand/core/ops` — the pure helpers errand's own packages and apps share
 * and a user of errand never calls: cursors and page bounds, run-id parts,
 * text and JSON limits, the stored-event check the append runs, the
 * waitpoint bookkeeping of the fold, the fold in place (for a caller that
 * owns its state), the fold kept for a result alone, and
 * the schema pieces the runtime compiles tools with.
 *
 * **Unstable.** This subpath carries no semver promise: a name here may
 * change or go in any release, in step with errand's own packages and apps.
 * Build on the root, `@errand/core`, whose names the docs teach.
 *
 * @packageDocumentation
 */

export { batch } from "./batch.js";
export { blobUri, parseBlobUri } from "./blob-uri.js";
export { budgetRemaining, DEFAULT_BUDGET_POLICY, roundUsd } from "./budget.js";
export { isMarkedChecked, markChecked } from "./checked-events.js";
export { decodeCursor, encodeCursor } from "./cursor.js";
export { runNotFound } from "./errors.js";
export {
  applyEventInPlace,
  copyForInPlaceFold,
  NO_STRUCTURED_OUTPUT_MESSAGE,
} from "./fold.js";
export { formatJsonPath, type JsonPath } from "./json-path.js";
export { resolveLocalRef } from "./json-pointer.js";
export { SCHEMA_STRING_FORMATS } from "./json-schema/limits.js";
export { compileLinearPattern, type LinearPattern } from "./linear-pattern.js";
export { isWildcardHost, listenUrl } from "./listen-url.js";
export { findLosslessJsonProblem } from "./lossless-json.js";
export { requireWholeNumber, wholeNumberOption } from "./options.js";
export { type LimitBounds, page, resolveLimit } from "./page.js";
export { isPlainObject } from "./plain-object.js";
export { applyResultEvent, applyResultEventInPlace } from "./result-fold.js";
export {
  createdAtOfRunId,
  isRunId,
  MAX_SHARDS,
  RUN_ID_RANDOM_BYTES,
  shardOfRunId,
} from "./run-id.js";
export {
  checkStoredEvent,
  decodeStoredEvent,
  type StoredEventDecoding,
  type StoredEventParts,
} from "./stored-event.js";
export {
  CALL_ARGS_PREVIEW_CHARS,
  INLINE_VALUE_LIMIT_BYTES,
  TOOL_TEXT_LIMIT_CHARS,
  TRANSCRIPT_BUDGET_CHARS,
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
