/**
 * A model request as a Chat Completions body: the transcript as messages,
 * tools as functions (strict where their schema allows), and the agent's
 * model settings under their Chat Completions names. Chat Completions has no
 * reasoning items to send back, so a step's `items` are not used here.
 */
import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
  ChatCompletionToolChoiceOption,
} from "openai/resources/chat/completions";
import { encodeToolArguments, type ModelRequest, type TranscriptMessage } from "../model.js";
import type { ModelSettings } from "../model-settings.js";
import type { ToolSpec } from "../tool-spec.js";

function toWireMessage(message: TranscriptMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case "system":
    case "user":
      return { role: message.role, content: message.content };
    case "tool":
      return { role: "tool", tool_call_id: message.callId, content: message.content };
    case "assistant":
      return {
        role: "assistant",
        content: message.content ?? null,
        ...(message.calls.length === 0
          ? {}
          : {
              tool_calls: message.calls.map((call) => ({
                id: call.callId,
                type: "function" as const,
                function: { name: call.name, arguments: encodeToolArguments(call.args) },
              })),
            }),
      };
  }
}

function toWireTool(spec: ToolSpec): ChatCompletionFunctionTool {
  return {
    type: "function",
    function: {
      name: spec.name,
      description: spec.description,
      parameters: spec.parameters,
      strict: spec.strict,
    },
  };
}

function toolChoice(
  choice: NonNullable<ModelSettings["toolChoice"]>,
): ChatCompletionToolChoiceOption {
  return typeof choice === "string"
    ? choice
    : { type: "function", function: { name: choice.name } };
}

/** Why Chat Completions cannot honour `settings`: only `reasoning.summary`, which it does not have. */
export function chatSettingsRefusal(settings: ModelSettings): string | undefined {
  return settings.reasoning?.summary === undefined
    ? undefined
    : 'the Chat Completions API has no reasoning summaries (reasoning.summary): use openaiModel({ api: "responses" })';
}

/** The settings under their Chat Completions names; none is left out. */
function settingsFields(settings: ModelSettings): Partial<ChatCompletionCreateParamsNonStreaming> {
  const { reasoning, temperature, topP, maxOutputTokens, parallelToolCalls } = settings;
  return {
    ...(reasoning?.effort === undefined ? {} : { reasoning_effort: reasoning.effort }),
    ...(temperature === undefined ? {} : { temperature }),
    ...(topP === undefined ? {} : { top_p: topP }),
    ...(maxOutputTokens === undefined ? {} : { max_completion_tokens: maxOutputTokens }),
    ...(parallelToolCalls === undefined ? {} : { parallel_tool_calls: parallelToolCalls }),
    ...(settings.toolChoice === undefined ? {} : { tool_choice: toolChoice(settings.toolChoice) }),
  };
}

/** The Chat Completions body for `request`, asking `model`. */
export function chatRequestBody(
  request: ModelRequest,
  model: string,
): ChatCompletionCreateParamsNonStreaming {
  return {
    model,
    messages: request.messages.map(toWireMessage),
    ...(request.tools.length === 0 ? {} : { tools: request.tools.map(toWireTool) }),
    ...settingsFields(request.settings),
  };
}
