/**
 * The AI SDK lanes of the conformance suite: `aiSdkModel` on the real
 * provider packages over HTTP — `@ai-sdk/openai` (Chat Completions and the
 * Responses API) against the repository's fake OpenAI server,
 * `@ai-sdk/anthropic` against the fake Anthropic server and `@ai-sdk/google`
 * against the fake Gemini server, each as JSON and as a stream — and on the
 * AI SDK's own mock models of specifications v3 and v4. Each lane records
 * the call options the adapter gave the language model and, over HTTP, each
 * answer's status and body, and says what usage an answer reports in its
 * provider's own terms (read from the wire body by hand, not by the adapter).
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createOpenAI } from "@ai-sdk/openai";
import { type AiSdkLanguageModel, aiSdkModel, type CallOptions } from "@errand/ai-sdk";
import type { Usage } from "@errand/core";
import type { Model } from "@errand/runtime";
import {
  type ProviderTurn,
  startFakeAnthropic,
  startFakeGemini,
  startFakeOpenAI,
} from "@errand/testing";
import { mockModel } from "./ai-sdk-mock-models.js";

/** A model ready to play one scenario, with what it exchanged so far. */
export interface AiSdkPrepared {
  model: Model;
  /** The call options of each model call, in order. */
  calls: CallOptions[];
  /** The HTTP status of each answer (200 for a mock's answer, its status for a mock's failure). */
  statuses: number[];
  /** The usage each successful answer reported, in errand's terms, read from its body. */
  reportedUsage(): Usage[];
}

/** One lane. */
export interface AiSdkLane {
  /** Whether the provider gives reasoning state a run must send back (thinking turns). */
  readonly keepsThinking: boolean;
  /** The status its provider answers "overloaded" with. */
  readonly overloadStatus: number;
  /** A 200 body that lacks what an answer must have, in the provider's shape. */
  readonly malformedBody: unknown;
  /** What the error of that body names. */
  readonly malformedNames: string;
  prepare(id: string, turns: ProviderTurn[]): Promise<AiSdkPrepared>;
  close(): Promise<void>;
}

type Fields = Record<string, unknown>;
const num = (value: unknown) => (typeof value === "number" ? value : 0);

/** Wraps a language model so that each call's options are recorded. */
function recording(model: AiSdkLanguageModel, calls: CallOptions[]): AiSdkLanguageModel {
  return {
    specificationVersion: model.specificationVersion,
    provider: model.provider,
    modelId: model.modelId,
    doGenerate(options) {
      calls.push(options);
      return model.doGenerate(options);
    },
    doStream(options) {
      calls.push(options);
      return model.doStream(options);
    },
  };
}

/** A fetch that records each answer's status and body (JSON, or the data of each server-sent event). */
function recordingFetch(statuses: number[], bodies: unknown[]): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    statuses.push(response.status);
    const text = await response.clone().text();
    const events = text
      .split("\n")
      .filter((line) => line.startsWith("data: "))
      .map((line) => JSON.parse(line.slice(6)) as unknown);
    if (response.status === 200) bodies.push(events.length > 0 ? events : JSON.parse(text));
    return response;
  };
}

function openAIUsage(body: Fields): Usage {
  const usage = (body.usage ?? {}) as Fields;
  const input = usage.prompt_tokens ?? usage.input_tokens;
  const output = usage.completion_tokens ?? usage.output_tokens;
  const inDetails = (usage.prompt_tokens_details ?? usage.input_tokens_details ?? {}) as Fields;
  const outDetails = (usage.completion_tokens_details ??
    usage.output_tokens_details ??
    {}) as Fields;
  return {
    inputTokens: num(input),
    outputTokens: num(output),
    cachedInputTokens: num(inDetails.cached_tokens),
    reasoningTokens: num(outDetails.reasoning_tokens),
  };
}

/** Anthropic bills `input_tokens` apart from the cache reads and writes: errand's input is all three. */
function anthropicUsage(body: unknown): Usage {
  const events = Array.isArray(body)
    ? (body as Fields[])
    : [{ type: "message_start", message: body }];
  const start = events.find((event) => event.type === "message_start")?.message as Fields;
  const usage = start.usage as Fields;
  const delta = events.find((event) => event.type === "message_delta")?.usage as Fields | undefined;
  const read = num(usage.cache_read_input_tokens);
  const write = num(usage.cache_creation_input_tokens);
  return {
    inputTokens: num(usage.input_tokens) + read + write,
    outputTokens: num(delta?.output_tokens ?? usage.output_tokens),
    cachedInputTokens: read,
    cacheWriteTokens: write,
  };
}

/** Gemini counts thoughts apart from the candidates: errand's output is both. */
function geminiUsage(body: unknown): Usage {
  const chunks = Array.isArray(body) ? (body as Fields[]) : [body as Fields];
  const usage = chunks.findLast((chunk) => chunk.usageMetadata !== undefined)
    ?.usageMetadata as Fields;
  return {
    inputTokens: num(usage.promptTokenCount),
    outputTokens: num(usage.candidatesTokenCount) + num(usage.thoughtsTokenCount),
    cachedInputTokens: num(usage.cachedContentTokenCount),
    reasoningTokens: num(usage.thoughtsTokenCount),
  };
}

function mockUsage(answer: unknown): Usage {
  const usage = (answer as { usage: { inputTokens: Fields; outputTokens: Fields } }).usage;
  return {
    inputTokens: num(usage.inputTokens.total),
    outputTokens: num(usage.outputTokens.total),
    cachedInputTokens: num(usage.inputTokens.cacheRead),
    cacheWriteTokens: num(usage.inputTokens.cacheWrite),
    reasoningTokens: num(usage.outputTokens.reasoning),
  };
}

/** A lane over HTTP: `connect` makes the provider's model on the recording fetch. */
function httpLane(
  server: { close(): Promise<void> },
  connect: (id: string, fetch: typeof globalThis.fetch) => AiSdkLanguageModel,
  usageOf: (body: unknown) => Usage,
  lane: Pick<AiSdkLane, "keepsThinking" | "overloadStatus" | "malformedBody" | "malformedNames">,
  register: (id: string, turns: ProviderTurn[]) => void,
  stream: boolean,
): AiSdkLane {
  return {
    ...lane,
    async prepare(id, turns) {
      register(id, turns);
      const calls: CallOptions[] = [];
      const statuses: number[] = [];
      const bodies: unknown[] = [];
      const model = aiSdkModel(recording(connect(id, recordingFetch(statuses, bodies)), calls), {
        stream,
      });
      return { model, calls, statuses, reportedUsage: () => bodies.map(usageOf) };
    },
    close: () => server.close(),
  };
}

async function openAILane(api: "chat" | "responses"): Promise<AiSdkLane> {
  const turnsById = new Map<string, ProviderTurn[]>();
  const due = (model: unknown, answered: number) => turnsById.get(String(model))?.[answered];
  const server = await startFakeOpenAI({
    scriptFor: (request) => {
      const turns = turnsById.get(request.model);
      return turns?.map((turn) => {
        if ("malformed" in turn) return { say: "" };
        if ("fail" in turn) return turn;
        const { think: _think, redact: _redact, ...played } = turn;
        return played;
      });
    },
    intercept: (request) => {
      const turn = due(request.body?.model, 0);
      return turn !== undefined && "malformed" in turn
        ? { status: 200, body: turn.malformed }
        : undefined;
    },
  });
  return httpLane(
    server,
    (id, fetch) => {
      const provider = createOpenAI({ apiKey: "test", baseURL: server.baseURL, fetch });
      return api === "chat" ? provider.chat(id) : provider.responses(id);
    },
    (body) => openAIUsage(body as Fields),
    {
      keepsThinking: false,
      overloadStatus: 503,
      malformedNames: api === "chat" ? "choices" : "output.0",
      malformedBody:
        api === "chat"
          ? { id: "chatcmpl-x", object: "chat.completion", created: 1, model: "m" }
          : {
              id: "resp_x",
              object: "response",
              created_at: 1,
              status: "completed",
              model: "m",
              output: [{ type: "function_call", id: "fc_x" }],
            },
    },
    (id, turns) => turnsById.set(id, turns),
    false,
  );
}

async function anthropicLane(stream: boolean): Promise<AiSdkLane> {
  const turnsById = new Map<string, ProviderTurn[]>();
  const server = await startFakeAnthropic({ turnsFor: (model) => turnsById.get(model) });
  return httpLane(
    server,
    (id, fetch) => createAnthropic({ apiKey: "test", baseURL: server.baseURL, fetch })(id),
    anthropicUsage,
    {
      keepsThinking: true,
      overloadStatus: 529,
      malformedNames: stream ? "stream" : "content",
      malformedBody: { id: "msg_x", type: "message", role: "assistant", model: "m" },
    },
    (id, turns) => turnsById.set(id, turns),
    stream,
  );
}

async function geminiLane(stream: boolean): Promise<AiSdkLane> {
  const turnsById = new Map<string, ProviderTurn[]>();
  const server = await startFakeGemini({ turnsFor: (model) => turnsById.get(model) });
  return httpLane(
    server,
    (id, fetch) => createGoogleGenerativeAI({ apiKey: "test", baseURL: server.baseURL, fetch })(id),
    geminiUsage,
    {
      keepsThinking: true,
      overloadStatus: 503,
      malformedNames: "candidates.0.content",
      malformedBody: { candidates: [{ content: { role: "model", parts: "none" } }] },
    },
    (id, turns) => turnsById.set(id, turns),
    stream,
  );
}

function mockLane(version: "v3" | "v4"): AiSdkLane {
  return {
    keepsThinking: true,
    overloadStatus: 529,
    malformedNames: "content list",
    malformedBody: { finishReason: { unified: "stop", raw: "stop" }, usage: {}, warnings: [] },
    async prepare(id, turns) {
      const calls: CallOptions[] = [];
      const answers: unknown[] = [];
      const statuses: number[] = [];
      const inner = mockModel(version, id, turns, { answers, statuses });
      const model = aiSdkModel(recording(inner as AiSdkLanguageModel, calls));
      return {
        model,
        calls,
        statuses,
        reportedUsage: () => answers.map(mockUsage),
      };
    },
    close: async () => undefined,
  };
}

/** The lanes, by how each is started. */
export const AI_SDK_LANES: readonly { id: string; start(): Promise<AiSdkLane> }[] = [
  { id: "ai-sdk-openai-chat", start: () => openAILane("chat") },
  { id: "ai-sdk-openai-responses", start: () => openAILane("responses") },
  { id: "ai-sdk-anthropic-json", start: () => anthropicLane(false) },
  { id: "ai-sdk-anthropic-sse", start: () => anthropicLane(true) },
  { id: "ai-sdk-google-json", start: () => geminiLane(false) },
  { id: "ai-sdk-google-sse", start: () => geminiLane(true) },
  { id: "ai-sdk-mock-v3", start: async () => mockLane("v3") },
  { id: "ai-sdk-mock-v4", start: async () => mockLane("v4") },
];
