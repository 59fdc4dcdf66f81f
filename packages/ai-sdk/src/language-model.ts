/**
 * The part of the AI SDK's language model specification (`@ai-sdk/provider`,
 * versions `v3` and `v4`) that errand uses, written out here rather than
 * imported: the adapter reads no more than these fields, so a field the
 * specification adds or moves cannot break it unseen, and users of either
 * version pass their model without a cast. What is read from a provider's
 * answer is typed `unknown` until `answer/` has checked it.
 */

/** A JSON value, as the specification types provider data. */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | JsonValue[]
  | { [key: string]: JsonValue | undefined };

/** Provider-specific options or metadata: a JSON object per provider name. */
export type ProviderData = Record<string, Record<string, JsonValue | undefined>>;

/** One part of an assistant message of the prompt. */
export type AssistantPart =
  | { type: "text"; text: string; providerOptions?: ProviderData }
  | { type: "reasoning"; text: string; providerOptions?: ProviderData }
  | {
      type: "tool-call";
      toolCallId: string;
      toolName: string;
      input: unknown;
      providerOptions?: ProviderData;
    };

/** A tool's result as the prompt carries it. */
interface ToolResultPart {
  type: "tool-result";
  toolCallId: string;
  toolName: string;
  output: { type: "text"; value: string };
}

/** One message of the prompt. */
export type PromptMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: { type: "text"; text: string }[] }
  | { role: "assistant"; content: AssistantPart[] }
  | { role: "tool"; content: ToolResultPart[] };

/** A function tool offered to the model. */
export interface FunctionTool {
  type: "function";
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  strict?: boolean;
}

/** Which tool the model must call. */
export type ToolChoice =
  | { type: "auto" }
  | { type: "none" }
  | { type: "required" }
  | { type: "tool"; toolName: string };

/** The reasoning efforts of a `v4` model's `reasoning` call option. */
export type ReasoningLevel = "none" | "minimal" | "low" | "medium" | "high" | "xhigh";

/** The call options errand sends (a subset of both versions' `CallOptions`). */
export interface CallOptions {
  prompt: PromptMessage[];
  tools?: FunctionTool[];
  toolChoice?: ToolChoice;
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  /** `v4` only. */
  reasoning?: ReasoningLevel;
  providerOptions?: ProviderData;
  abortSignal?: AbortSignal;
}

/**
 * A language model of the AI SDK, specification `v3` (AI SDK 6) or `v4`
 * (AI SDK 7): what `@ai-sdk/anthropic`, `@ai-sdk/google`, `@ai-sdk/openai`
 * and every other provider package make.
 */
export interface AiSdkLanguageModel {
  readonly specificationVersion: "v3" | "v4";
  readonly provider: string;
  readonly modelId: string;
  doGenerate(options: CallOptions): PromiseLike<unknown>;
  doStream(options: CallOptions): PromiseLike<{ stream: ReadableStream<unknown> }>;
}
