/**
 * The slice of the OpenAI Chat Completions wire format the fake server reads
 * and writes. Declared here (not imported from the `openai` package) so this
 * package has no runtime dependency on it.
 */

/** A tool call as it travels in an assistant message or a response. */
export interface WireToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** One message of a request, as sent (only `role` is relied upon). */
export interface WireMessage {
  role: string;
  content?: unknown;
  tool_calls?: WireToolCall[];
  tool_call_id?: string;
  [field: string]: unknown;
}

/** A function tool offered in a request. */
interface WireFunctionTool {
  type: "function";
  function: { name: string; description?: string; parameters?: unknown; strict?: boolean };
}

/** A request body of `POST /v1/chat/completions` after validation. */
export interface ChatCompletionRequest {
  model: string;
  messages: WireMessage[];
  tools?: WireFunctionTool[];
  [field: string]: unknown;
}

/** Token counts of one response. */
export interface WireUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** A non-streaming chat completion. */
export interface ChatCompletion {
  id: string;
  object: "chat.completion";
  created: number;
  model: string;
  choices: {
    index: number;
    message: {
      role: "assistant";
      content: string | null;
      refusal: null;
      tool_calls?: WireToolCall[];
    };
    finish_reason: "stop" | "tool_calls";
    logprobs: null;
  }[];
  usage: WireUsage;
}

/** The error body every OpenAI endpoint answers with. */
export interface WireErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}
