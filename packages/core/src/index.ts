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
 * @packageDocumentation
 */
export * from "./batch.js";
export * from "./blob-uri.js";
export * from "./cursor.js";
export * from "./errors.js";
export * from "./events.js";
export * from "./fold.js";
export * from "./json-path.js";
export { resolveLocalRef } from "./json-pointer.js";
export * from "./json-schema-limits.js";
export * from "./linear-pattern.js";
export * from "./lossless-json.js";
export * from "./next-action.js";
export * from "./page.js";
export * from "./preflight.js";
export * from "./redaction.js";
export * from "./run-id.js";
export * from "./run-result.js";
export * from "./run-state.js";
export * from "./script.js";
export * from "./text-limits.js";
