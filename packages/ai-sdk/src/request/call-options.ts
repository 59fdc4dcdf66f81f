/**
 * A model request as AI SDK call options: the prompt, the tools as function
 * tools (strict where their schema allows: providers that cannot enforce it
 * ignore the flag), and the agent's model settings under the specification's
 * names. A setting the specification has no name for is refused when the
 * agent is defined (`settingsRefusal`), never dropped: provider-specific
 * options go in `providerOptions` of `aiSdkModel` instead.
 */
import type { ModelRequest } from "@errand/runtime";
import type {
  AiSdkLanguageModel,
  CallOptions,
  FunctionTool,
  ProviderData,
  ReasoningLevel,
  ToolChoice,
} from "../language-model.js";
import { toPrompt } from "./prompt.js";

type Settings = ModelRequest["settings"];

const REASONING_LEVELS: readonly string[] = ["none", "minimal", "low", "medium", "high", "xhigh"];

/**
 * Why `model` cannot honour `settings` (a sentence naming the setting), or
 * `undefined`. The specification has no reasoning summary nor parallel tool
 * calls; a reasoning effort needs a `v4` model and one of its levels.
 */
export function settingsRefusal(model: AiSdkLanguageModel, settings: Settings): string | undefined {
  const where = `the AI SDK model ${model.provider}:${model.modelId}`;
  const instead = "set it in aiSdkModel's providerOptions instead";
  if (settings.reasoning?.summary !== undefined) {
    return `${where} takes no reasoning.summary: ${instead}`;
  }
  if (settings.parallelToolCalls !== undefined) {
    return `${where} takes no parallelToolCalls: ${instead}`;
  }
  const effort = settings.reasoning?.effort;
  if (effort !== undefined && model.specificationVersion === "v3") {
    return `${where} implements specification v3, which has no reasoning.effort: ${instead}`;
  }
  if (effort !== undefined && !REASONING_LEVELS.includes(effort)) {
    return `${where} takes reasoning.effort ${REASONING_LEVELS.join(", ")}, not ${effort}`;
  }
  return undefined;
}

function toolChoice(choice: NonNullable<Settings["toolChoice"]>): ToolChoice {
  return typeof choice === "string" ? { type: choice } : { type: "tool", toolName: choice.name };
}

function toolsOf(request: ModelRequest): FunctionTool[] {
  return request.tools.map((spec) => ({
    type: "function",
    name: spec.name,
    description: spec.description,
    inputSchema: spec.parameters,
    strict: spec.strict,
  }));
}

/** The call options for `request`, with `providerOptions` and the run's `signal`. */
export function callOptions(
  request: ModelRequest,
  providerOptions: ProviderData | undefined,
  signal: AbortSignal,
): CallOptions {
  const { reasoning, temperature, topP, maxOutputTokens } = request.settings;
  return {
    prompt: toPrompt(request.messages),
    ...(request.tools.length === 0 ? {} : { tools: toolsOf(request) }),
    ...(request.settings.toolChoice === undefined
      ? {}
      : { toolChoice: toolChoice(request.settings.toolChoice) }),
    ...(temperature === undefined ? {} : { temperature }),
    ...(topP === undefined ? {} : { topP }),
    ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
    ...(reasoning?.effort === undefined ? {} : { reasoning: reasoning.effort as ReasoningLevel }),
    ...(providerOptions === undefined ? {} : { providerOptions }),
    abortSignal: signal,
  };
}
