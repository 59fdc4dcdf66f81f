/**
 * `aiSdkModel`: errand's {@link Model} on any AI SDK language model
 * (docs/architecture/ai-sdk.md#the-adapter-contract). A request becomes one `doGenerate` (or,
 * with `stream`, one `doStream` folded back into what `doGenerate` gives),
 * whose result is read by the rules of `answer/read-result.ts`. The
 * provider's own retries are never involved (the specification's models
 * make one HTTP request per call): the runtime retries in one place.
 */
import { ErrandError } from "@errand/core";
import type { Model, ModelResponse } from "@errand/runtime";
import { providerCallFailure } from "./answer/classify-error.js";
import { readResult } from "./answer/read-result.js";
import { foldStream } from "./answer/stream-fold.js";
import { capabilitiesOf } from "./capabilities.js";
import type { AiSdkLanguageModel, ProviderData } from "./language-model.js";
import { callOptions, settingsRefusal } from "./request/call-options.js";

/** What {@link aiSdkModel} takes beside the model. */
export interface AiSdkModelOptions {
  /**
   * Provider options sent with every request, by provider name, e.g.
   * `{ anthropic: { thinking: { type: "enabled", budgetTokens: 4000 } } }`:
   * what the agent's `modelSettings` have no name for.
   */
  providerOptions?: ProviderData;
  /**
   * Ask for the answer as a stream (`doStream`) and hand its text and
   * tool-input pieces to the run's live channel as they arrive. The logged
   * answer is the same either way. Default false.
   */
  stream?: boolean;
  /**
   * The name its fleet-wide rate limits and 429 pauses are shared under
   * (`Model.providerKey`). Default `ai-sdk:<provider>` (e.g.
   * `ai-sdk:anthropic.messages`): give one per API key when a fleet uses several.
   */
  providerKey?: string;
  /**
   * The environment variable the provider reads its API key from, for a
   * provider made without a key of its own (e.g. `ANTHROPIC_API_KEY` for
   * `anthropic(…)`): while it is unset or blank, `missingCredentials` names
   * it, and a worker running the model refuses to start before it takes a run.
   */
  apiKeyVariable?: string;
}

/**
 * A {@link Model} on an AI SDK language model of specification `v3` (AI SDK
 * 6) or `v4` (AI SDK 7). Tools go as function tools (strict where their
 * schema allows), the agent's settings under the specification's names
 * (one it has no name for is refused when the agent is defined); usage is
 * recorded with its cache reads, cache writes and reasoning counts; reasoning
 * and every part's provider metadata (Anthropic's signed thinking, Gemini's
 * thought signatures, …) are logged in `model-responded` and sent back, in
 * order, on the next step, by any worker. Failures are classified like
 * `openaiModel`'s: 408, 409, 429 and 5xx retryable, other 4xx not, an answer
 * the adapter cannot read a `model_error` naming what it lacks. Throws an
 * `ErrandError` (`invalid_spec`) for a model of another specification.
 *
 * ```ts
 * import { anthropic } from "@ai-sdk/anthropic";
 * const claude = aiSdkModel(anthropic("claude-sonnet-4-5"), {
 *   providerOptions: { anthropic: { thinking: { type: "enabled", budgetTokens: 4000 } } },
 * });
 * ```
 */
export function aiSdkModel(model: AiSdkLanguageModel, options: AiSdkModelOptions = {}): Model {
  const version: unknown = model.specificationVersion;
  if (version !== "v3" && version !== "v4") {
    throw new ErrandError(
      "invalid_spec",
      `aiSdkModel takes language models of specification v3 (AI SDK 6) or v4 (AI SDK 7), not ${String(version)}: upgrade the provider package`,
    );
  }
  return {
    name: `${model.provider}:${model.modelId}`,
    supportsTools: true,
    providerKey: options.providerKey ?? `ai-sdk:${model.provider}`,
    capabilities: capabilitiesOf(model, options.providerOptions),
    refuseSettings: (settings) => settingsRefusal(model, settings),
    missingCredentials() {
      const variable = options.apiKeyVariable;
      if (variable === undefined || process.env[variable]?.trim()) return undefined;
      return `${variable} is not set`;
    },
    async respond(request, signal): Promise<ModelResponse> {
      const call = callOptions(request, options.providerOptions, signal);
      let result: unknown;
      try {
        result = options.stream
          ? await foldStream((await model.doStream(call)).stream, request.onDelta)
          : await model.doGenerate(call);
      } catch (error) {
        throw providerCallFailure(error);
      }
      return readResult(result, request.step);
    },
  };
}
