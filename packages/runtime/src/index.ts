/**
 * `@errand/runtime` — the agent loop of errand: agents, tools, models and the
 * structured-output tool. It talks to the world only through an
 * {@link EventSink} (where a run's events go) and a {@link Model} (who
 * answers); it never touches Redis or BullMQ, so it runs the same in a worker,
 * in a test or embedded in your own process.
 *
 * ## Define an agent
 *
 * ```ts
 * import { z } from "zod";
 * import { defineAgent, defineTool, openaiModel } from "@errand/runtime";
 *
 * const lookup = defineTool({
 *   name: "lookup",
 *   description: "Looks a word up in the dictionary.",
 *   parameters: z.object({ word: z.string() }),
 *   handler: async ({ word }, ctx) => ({ word, meaning: await dictionary.get(word, ctx.signal) }),
 * });
 *
 * const definer = defineAgent({
 *   name: "definer",
 *   instructions: "Define the word you are given.",
 *   model: openaiModel({ model: "gpt-4o-mini" }),    // or scriptedModel(), or a model name
 *   tools: [lookup],
 *   outputSchema: z.object({ word: z.string(), definition: z.string() }),
 *   maxSteps: 6,
 *   timeoutMs: 60_000,
 * });
 * ```
 *
 * A tool's zod parameters reach the model as JSON Schema (strict when the
 * schema fits the strict subset) and its arguments are parsed before the
 * handler runs. A handler that throws fails that call only: the model reads
 * `Error: <message>` and can go on. Throw a {@link FatalToolError} to fail the
 * run (`tool_error`). Results over the inline limit are stored as blobs and
 * the model sees a truncated preview with their `resource://` reference.
 *
 * ## Run it step by step
 *
 * ```ts
 * import { createMemorySink, runSteps } from "@errand/runtime";
 *
 * const sink = createMemorySink();                        // the engine passes its Redis sink
 * await sink.append(runId, 0, [runQueued, runStarted]);  // what the engine writes first
 * const state = await runSteps({ agent: definer, state: sink.state(runId), sink, signal });
 * settleRun(state); // from @errand/core: the RunResult
 * ```
 *
 * {@link runSteps} continues a run from its folded state: a model response or
 * tool result already in the log is never redone. Each step — the model's
 * response and the outcome of each of its tool calls — is one append. The
 * run's schema and limits come from its own `run-queued` event, so two runs
 * never see each other's schema. It writes the terminal event itself:
 * `finished`; `failed` with `max_steps`, `timeout`, `model_error` (after
 * retries with backoff that honours `retry-after`) or `tool_error`;
 * `cancelled` when the signal fires. A `seq_conflict` from the sink (another
 * writer owns the run) is not caught: re-read the log and decide.
 *
 * ## Structured output (docs/architecture/structured-output.md)
 *
 * A run with a schema gets the `structured_output` tool (`set_output` is
 * accepted too) and is told to call it once when done. A valid call is
 * recorded and ends the run, acknowledged with `Structured output recorded.`;
 * calls after it in the same response are refused; invalid arguments are
 * refused with the validation issues so the model can retry; a run that
 * finishes without recording settles as `no_structured_output`.
 *
 * ## Models
 *
 * {@link openaiModel} speaks Chat Completions (`api: "chat"`) or the
 * Responses API (`api: "responses"`) through the official `openai` client to
 * OpenAI or any compatible server (`baseURL`, or `OPENAI_BASE_URL`; a server
 * needs no key). It reads answers as tolerantly as compatible servers need
 * (a tool call without `type`, no `usage`) and fails a malformed one with a
 * `model_error` naming what is missing. On the Responses API each step's
 * output items — a reasoning model's reasoning included — are logged in
 * `model-responded` and sent back in order, so a run resumed on another
 * worker asks exactly what an uninterrupted run would.
 *
 * An agent's `modelSettings` (`reasoning`, `temperature`, `maxOutputTokens`,
 * `parallelToolCalls`, `toolChoice`) are sent under each API's own names; a
 * setting the model cannot honour refuses the agent (`settings_not_supported`)
 * instead of being dropped. {@link scriptedModel}
 * plays a script of turns (`say`, `call`, `sleepMs`, `fail`) from the agent's
 * `script`, or from the run input's `script` when the agent sets
 * `scriptFromInput` — the demo and the tests run on it.
 *
 * ## Traces
 *
 * Through `@opentelemetry/api` only (a no-op unless the application installs
 * an OpenTelemetry SDK): each model request is a `chat {model}` span and each
 * tool a call runs an `execute_tool {tool}` span, in the GenAI semantic
 * conventions. Message contents stay off them unless `traceContent` is set;
 * then they are redacted like the logs. The span helpers the engine builds
 * its own spans with are `@errand/runtime/ops`, without a semver promise.
 *
 * @packageDocumentation
 */
export { type AgentOptions, defineAgent } from "./agent.js";
export { agentVersion } from "./agent-version.js";
export { type BlobStore, createMemoryBlobStore, type StoredBlob } from "./blobs.js";
export type { BudgetGate, PriceResponse } from "./budget-gate.js";
export {
  FatalToolError,
  type FatalToolErrorOptions,
  isFatalToolError,
  isParkRequest,
  ModelError,
  type ModelErrorOptions,
  ParkRequest,
  type WaitpointRequest,
} from "./errors.js";
export { type LiveChannel, liveModel } from "./live-model.js";
export type { Logger } from "./logger.js";
export { createMemorySink, type MemorySink } from "./memory-sink.js";
export type {
  Agent,
  Model,
  ModelRequest,
  ModelResponse,
  TranscriptMessage,
} from "./model.js";
export {
  ModelCapabilities,
  RefusedSetting,
  SchemaKeywordRefusal,
  SettingsConflict,
} from "./model-capabilities.js";
export type { RetryPolicy } from "./model-retries.js";
export { ModelSettings, RunModelSettings } from "./model-settings.js";
export { PLACEHOLDER_API_KEY, readOpenAIEnv } from "./openai/client.js";
export { type OpenAIModelOptions, openaiModel } from "./openai/model.js";
export type { ResponsesHistory } from "./openai/responses.js";
export { type RunStepsOptions, runSteps } from "./run-steps.js";
export { type ScriptedModelOptions, scriptedModel } from "./scripted-model.js";
export type { EventSink } from "./sink.js";
export { defineTool, type Tool, type ToolContext, type ToolOptions } from "./tool.js";
export type { ToolSpec } from "./tool-spec.js";
export {
  type AskToolOptions,
  askTool,
  type WaitpointAnswer,
  type WaitpointOptions,
  waitForAnswer,
} from "./waitpoint.js";
