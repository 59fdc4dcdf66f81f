/**
 * `@errand/ai-sdk` — errand agents on any AI SDK language model: Anthropic,
 * Google, OpenAI and every other provider package of AI SDK 6 or 7
 * (specification `v3` or `v4`). The AI SDK is a peer dependency: install the
 * provider packages you use.
 *
 * ```ts
 * import { anthropic } from "@ai-sdk/anthropic";
 * import { aiSdkModel } from "@errand/ai-sdk";
 * import { defineAgent } from "@errand/runtime";
 *
 * const agent = defineAgent({
 *   name: "researcher",
 *   instructions: "Answer the question.",
 *   model: aiSdkModel(anthropic("claude-sonnet-4-5")),
 * });
 * ```
 *
 * @packageDocumentation
 */
export { type AiSdkModelOptions, aiSdkModel } from "./ai-sdk-model.js";
export type {
  AiSdkLanguageModel,
  CallOptions,
  JsonValue,
  ProviderData,
} from "./language-model.js";
