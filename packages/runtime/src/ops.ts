/**
 * `@errand/runtime/ops` — the parts of the runtime the engine and errand's
 * tests build on: the span helpers the engine traces with (GenAI semantic
 * conventions), the agent checks a worker runs before it takes a run, the
 * structured-output tool's name and messages, the transcript builder (and
 * the trim of a state to what its transcript reads), the
 * logger helpers, the waitpoint answer check and validation issues located
 * by path.
 *
 * **Unstable.** This subpath carries no semver promise: a name here may
 * change or go in any release, in step with errand's own packages and apps.
 * Build on the root, `@errand/runtime`, whose names the docs teach.
 *
 * @packageDocumentation
 */

export {
  assertAgentCanCarrySchema,
  assertModelIsReady,
  assertModelTakesSettings,
  DEFAULT_MAX_STEPS,
} from "./agent.js";
export {
  CallIds,
  isObject,
  kindOf,
  malformed,
  optionalText,
  readArguments,
} from "./answer-fields.js";
export { compileInputSchema, type InputCheck, invalidInput } from "./input-schema.js";
export { lazyChild, noopLogger } from "./logger.js";
export {
  type SchemaCapabilityRefusal,
  schemaCapabilityRefusal,
  settingsCapabilityRefusal,
} from "./model-capabilities.js";
export { runModelSettings } from "./model-settings.js";
export { retryAfterMs } from "./openai/client.js";
export {
  compileOutputSchema,
  invalidOutputMessage,
  STRUCTURED_OUTPUT_TOOL,
} from "./structured-output.js";
export { setContentAttribute } from "./tracing/content.js";
export { GEN_AI, modelIdentity } from "./tracing/gen-ai.js";
export { ERROR_TYPE, inSpan, markSpanFailed } from "./tracing/spans.js";
export { buildTranscript, trimToTranscriptInPlace } from "./transcript.js";
export { locateIssues } from "./validation-issues.js";
export { checkAnswer } from "./waitpoint.js";
