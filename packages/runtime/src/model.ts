/**
 * The one interface every model provider implements: a request is the whole
 * transcript of a run plus the tools it may call; a response is the model's
 * text and tool calls. Providers translate to and from their own wire format.
 * A defined {@link Agent} is here too: it names its model, and a request
 * carries its agent, so the two types live in one module, which `agent.ts`
 * (defining agents) imports without being imported back.
 */
import type { ModelDelta, OutputItem, Script, ToolCall, Usage } from "@errand/core";
import {
  type ModelCapabilities,
  schemaCapabilityRefusal,
  settingsCapabilityRefusal,
} from "./model-capabilities.js";
import { type ModelSettings, settingNames } from "./model-settings.js";
import type { Tool } from "./tool.js";
import type { ToolSpec } from "./tool-spec.js";

/**
 * One message of the transcript a model is sent, in a provider-neutral form.
 * An assistant message carries what its step logged for the provider to be
 * sent back (`items`, `responseId`): see {@link ModelResponse}.
 */
export type TranscriptMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | {
      role: "assistant";
      content?: string;
      calls: ToolCall[];
      items?: OutputItem[];
      responseId?: string;
    }
  | { role: "tool"; callId: string; name: string; content: string };

/** Everything a model is asked for one step of one run. */
export interface ModelRequest {
  runId: string;
  /** The step this request will produce: 1 for the first model request of the run. */
  step: number;
  /** The model name the agent asks for, when its `model` is a name rather than a {@link Model}. */
  model?: string;
  messages: TranscriptMessage[];
  tools: ToolSpec[];
  /** The agent's model settings (`{}` when it sets none): the model has already said it honours them. */
  settings: ModelSettings;
  /** The agent being run: scripted models read their script from it. */
  agent: Agent;
  /** The run's input, as queued. */
  input: unknown;
  /**
   * Set when the run has a live channel: a model that streams hands it each
   * piece of its answer, in order, as it arrives (see `LiveChannel`). It never
   * throws. The response `respond` resolves with is still the whole answer.
   */
  onDelta?: (delta: ModelDelta) => void;
}

/** What a model answered. */
export interface ModelResponse {
  text?: string;
  /** Tool calls in the order the model made them; empty when the model answered with text only. */
  calls: ToolCall[];
  usage: Usage;
  /** The provider's finish reason (`stop`, `tool_calls`, `length`, …). */
  finish: string;
  /**
   * The response's output items in order, for a provider that must be sent
   * them back on the next request (reasoning items, item ids). Logged in
   * `model-responded` and handed back on the step's assistant message, so a
   * run resumed on another worker sends what an uninterrupted run would.
   */
  items?: OutputItem[];
  /** The provider's id of the response, logged for providers that chain responses by id. */
  responseId?: string;
}

/**
 * A model provider. `respond` must stop (reject) promptly once `signal` fires,
 * and report failures as `ModelError` with `retryable` set: the runtime retries
 * those with backoff and fails the run with `model_error` when they persist.
 */
export interface Model {
  /** A name for logs and errors (`scripted`, `openai:gpt-4o-mini`, …). */
  readonly name: string;
  /** False for a model without tool calling: it cannot carry a structured-output schema. */
  readonly supportsTools: boolean;
  /**
   * Who serves it, under whose key (e.g. `https://api.openai.com/v1#<key digest>`):
   * the name a fleet's provider rate limits and 429 pauses are shared under.
   * A model without one is not rate limited by the fleet.
   */
  readonly providerKey?: string;
  /**
   * Why this model cannot honour `settings` (a sentence naming the setting),
   * or `undefined` when it honours them all. Asked when an agent is defined
   * and when a host resolves an agent's model, so that no setting is ever
   * dropped silently. A model without it honours no settings at all.
   */
  refuseSettings?(settings: ModelSettings): string | undefined;
  /**
   * What keeps this model from sending any request — its provider's API key
   * is not set, naming the variable — or `undefined`. Asked by a worker when
   * it starts: a worker with such a model refuses to start, before it takes
   * a run. A model without it is taken to be ready.
   */
  missingCredentials?(): string | undefined;
  /**
   * What it can honour, as data (its provider, the schema keywords and
   * settings it refuses, whether it forces tool calls): copied into its
   * agents' registrations so that `fire` refuses a schema or settings it
   * cannot take before anything is written. Its settings rules are checked
   * with `refuseSettings`, wherever settings are.
   */
  readonly capabilities?: ModelCapabilities;
  respond(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse>;
}

/** A defined agent. */
export interface Agent {
  readonly name: string;
  /** One line for whoever picks an agent: a parent model, a person, a client. */
  readonly description?: string;
  readonly instructions: string;
  readonly model: Model | string;
  /** The agent's model settings, checked; `{}` when it gives none. */
  readonly modelSettings: ModelSettings;
  readonly tools: readonly Tool[];
  /** The input schema as JSON Schema, already accepted by `preflightSchema`. */
  readonly inputSchema?: Record<string, unknown>;
  /** The output schema as JSON Schema, already accepted by `preflightSchema`. */
  readonly outputSchema?: Record<string, unknown>;
  readonly maxSteps: number;
  readonly timeoutMs?: number;
  readonly script?: Script;
  readonly scriptFromInput: boolean;
  /** The version it was given, if any; `agentVersion(agent)` is its version either way. */
  readonly version?: string;
}

/**
 * Why `model` cannot honour `settings`, or `undefined` when it honours them
 * all (or none are given). A model that does not say ({@link Model.refuseSettings}
 * absent) honours none; one that does is also held to its
 * {@link Model.capabilities}' settings rules.
 */
export function settingsRefusal(model: Model, settings: ModelSettings): string | undefined {
  const names = settingNames(settings);
  if (names.length === 0) return undefined;
  if (!model.refuseSettings) {
    return `model ${model.name} takes no model settings, so it cannot honour ${names.join(", ")}`;
  }
  return (
    model.refuseSettings(settings) ??
    (model.capabilities === undefined
      ? undefined
      : settingsCapabilityRefusal(model.capabilities, settings))
  );
}

/** Why a model cannot carry a structured-output schema: a sentence, and what to branch on. */
export interface SchemaRefusal {
  message: string;
  /** `keyword`, `path` and `provider` when a capability refuses a keyword. */
  details: Record<string, unknown>;
}

/**
 * Why `model` cannot carry the structured-output `schema` (JSON Schema that
 * preflight accepted), or `undefined` when it can: a model without tool
 * calls carries none; one whose {@link Model.capabilities} refuse a keyword
 * of the schema carries no schema holding it.
 */
export function schemaRefusal(
  model: Model,
  schema: Record<string, unknown>,
): SchemaRefusal | undefined {
  if (!model.supportsTools) {
    return {
      message: `model ${model.name} cannot call tools, so it cannot record a structured output`,
      details: {},
    };
  }
  const refused =
    model.capabilities === undefined
      ? undefined
      : schemaCapabilityRefusal(model.capabilities, schema);
  if (refused === undefined) return undefined;
  const { keyword, path, provider, message } = refused;
  return { message: `model ${model.name}: ${message}`, details: { keyword, path, provider } };
}

/**
 * Tool-call arguments as a {@link ToolCall} carries them: the parsed JSON
 * value, or the text itself when it is not JSON (validation then refuses it
 * and the model sees why).
 */
export function decodeToolArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Tool-call arguments as the wire carries them: JSON text (text kept as it is, `undefined` as `{}`). */
export function encodeToolArguments(args: unknown): string {
  return typeof args === "string" ? args : (JSON.stringify(args ?? {}) ?? "{}");
}
