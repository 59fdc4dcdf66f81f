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

/** Token counts of one chat completion. */
export interface WireUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
  completion_tokens_details: { reasoning_tokens: number };
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

/** One input item of a Responses request, as sent (only `type`, `role` and the fields read are relied upon). */
export interface ResponsesInputItem {
  type?: string;
  role?: string;
  content?: unknown;
  id?: string;
  call_id?: string;
  name?: string;
  arguments?: string;
  output?: unknown;
  encrypted_content?: string | null;
  [field: string]: unknown;
}

/** A function tool offered in a Responses request. */
interface ResponsesFunctionTool {
  type: "function";
  name: string;
  description?: string;
  parameters?: unknown;
  strict?: boolean;
}

/** A request body of `POST /v1/responses` after validation. */
export interface ResponsesRequest {
  model: string;
  input: string | ResponsesInputItem[];
  instructions?: string;
  tools?: ResponsesFunctionTool[];
  previous_response_id?: string;
  store?: boolean;
  include?: string[];
  reasoning?: { effort?: string; summary?: string };
  [field: string]: unknown;
}

/** One output item of a response. */
export type ResponsesOutputItem =
  | {
      type: "reasoning";
      id: string;
      summary: { type: "summary_text"; text: string }[];
      encrypted_content?: string;
    }
  | {
      type: "message";
      id: string;
      status: "completed";
      role: "assistant";
      content: { type: "output_text"; text: string; annotations: [] }[];
    }
  | {
      type: "function_call";
      id: string;
      call_id: string;
      name: string;
      arguments: string;
      status: "completed";
    };

/** A non-streaming response of the Responses API. */
export interface ResponseObject {
  id: string;
  object: "response";
  created_at: number;
  status: "completed";
  model: string;
  instructions: string | null;
  output: ResponsesOutputItem[];
  previous_response_id: string | null;
  store: boolean;
  parallel_tool_calls: boolean;
  tool_choice: unknown;
  tools: unknown[];
  temperature: number | null;
  error: null;
  incomplete_details: null;
  usage: {
    input_tokens: number;
    input_tokens_details: { cached_tokens: number };
    output_tokens: number;
    output_tokens_details: { reasoning_tokens: number };
    total_tokens: number;
  };
}
