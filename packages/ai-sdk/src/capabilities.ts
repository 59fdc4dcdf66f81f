/**
 * What an AI SDK model can honour, as data (`ModelCapabilities`): read from
 * the provider's name and the options the model is made with, so that a
 * worker puts it in the registry and `fire` refuses a schema or settings the
 * provider would refuse mid-run (docs/architecture/ai-sdk.md#capabilities).
 *
 * - Google (Gemini) carries a subset of JSON Schema in tool parameters: no
 *   `$ref`/`$defs`, `propertyNames`, `uniqueItems`, `const` in a `oneOf`
 *   branch, nor `additionalProperties` other than `false`.
 * - Anthropic refuses `temperature` with `topP` on recent Claude models, and
 *   with extended thinking (in `providerOptions.anthropic.thinking`, or a
 *   `reasoning.effort` setting) refuses `temperature` and forcing a tool call
 *   (`toolChoice` `required` or a name); a model with thinking on cannot
 *   force tool calls at all.
 * - Any other provider: no refusals known, tool calls forceable.
 */
import type { ModelCapabilities } from "@errand/runtime";
import type { AiSdkLanguageModel, ProviderData } from "./language-model.js";

const GEMINI_SCHEMA_REFUSALS: NonNullable<ModelCapabilities["schemaRefusals"]> = [
  { keyword: "$ref", fix: "write the referenced schema in place" },
  { keyword: "$defs", fix: "write each definition where it is used" },
  { keyword: "propertyNames", fix: "drop it and check the names in a tool" },
  { keyword: "uniqueItems", fix: "drop it and check uniqueness in a tool" },
  { keyword: "const", within: "oneOf", fix: "use an enum, or anyOf" },
  {
    keyword: "additionalProperties",
    allowedValue: false,
    fix: "list the properties, or use an array of key-value objects",
  },
];

const THINKING_OFF = "Claude cannot force a tool call while extended thinking is on";
const NO_TEMPERATURE = "Claude takes no temperature while extended thinking is on";

/** True when the options turn Anthropic's extended thinking on. */
function thinkingOn(providerOptions: ProviderData | undefined): boolean {
  const thinking = providerOptions?.anthropic?.thinking;
  if (typeof thinking !== "object" || thinking === null || Array.isArray(thinking)) return false;
  const type = (thinking as { type?: unknown }).type;
  return type === "enabled" || type === "adaptive";
}

function anthropic(modelId: string, providerOptions: ProviderData | undefined): ModelCapabilities {
  const thinking = thinkingOn(providerOptions);
  const withEffort = (setting: string, reason: string) => ({
    settings: [setting, "reasoning.effort"],
    reason,
  });
  return {
    provider: "anthropic",
    modelId,
    forcesToolCalls: !thinking,
    refusedSettings: thinking
      ? [
          { setting: "temperature", reason: NO_TEMPERATURE },
          { setting: "toolChoice=required", reason: THINKING_OFF },
          { setting: "toolChoice=tool", reason: THINKING_OFF },
        ]
      : [],
    settingsConflicts: [
      {
        settings: ["temperature", "topP"],
        reason: "recent Claude models take temperature or topP, not both",
      },
      withEffort("temperature", NO_TEMPERATURE),
      withEffort("toolChoice=required", THINKING_OFF),
      withEffort("toolChoice=tool", THINKING_OFF),
    ],
    streaming: true,
    reasoning: true,
    promptCaching: true,
  };
}

/** The capabilities of `model` made with `providerOptions`. */
export function capabilitiesOf(
  model: AiSdkLanguageModel,
  providerOptions: ProviderData | undefined,
): ModelCapabilities {
  const family = model.provider.split(".")[0] ?? model.provider;
  if (family === "anthropic") return anthropic(model.modelId, providerOptions);
  if (family === "google") {
    return {
      provider: "google",
      modelId: model.modelId,
      forcesToolCalls: true,
      schemaRefusals: GEMINI_SCHEMA_REFUSALS,
      streaming: true,
      reasoning: true,
      promptCaching: true,
    };
  }
  return { provider: family, modelId: model.modelId, forcesToolCalls: true, streaming: true };
}
