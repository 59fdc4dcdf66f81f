/**
 * The servers the conformance scenarios run against, each in both API
 * shapes: the repository's own fake server (plays script turns), and the
 * independent `@dwmkerr/mock-llm` from the registry (sends exact bodies by
 * path, model and sequence). Every model is an `openaiModel` on a real
 * `openai` client whose fetch records each exchange — what was sent and what
 * came back — so the same assertions read both servers.
 */
import type { Script } from "@errand/core";
import { type Model, openaiModel } from "@errand/runtime";
import {
  type FakeOpenAI,
  type MockLlm,
  readSentRequest,
  type SentRequest,
  startFakeOpenAI,
  startMockLlm,
} from "@errand/testing";
import OpenAI from "openai";
import { type Api, scriptTurn, type Turn, wireAnswer } from "./turns.js";

/** One request a model made, and what it got. */
export interface Exchange {
  path: string;
  sent: SentRequest;
  status: number;
  /** The answer's JSON body; `undefined` when it was not JSON. */
  answer: unknown;
}

/** A model ready to play one scenario, and what it exchanged so far. */
interface PreparedModel {
  model: Model;
  exchanges: Exchange[];
}

/** A server in one API shape. */
export interface ServerLane {
  readonly name: string;
  readonly api: Api;
  /** Whether the server can send `retry-after` (mock-llm sends no headers). */
  readonly sendsRetryAfter: boolean;
  /** Makes the server play `turns` for the model named `model`, and gives that model. */
  prepare(model: string, turns: readonly Turn[]): Promise<PreparedModel>;
  close(): Promise<void>;
}

/** A fetch that records each exchange before handing the response on. */
function recordingFetch(exchanges: Exchange[]): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const url = new URL(input instanceof Request ? input.url : String(input));
    const body: unknown = typeof init?.body === "string" ? JSON.parse(init.body) : undefined;
    const answer: unknown = await response
      .clone()
      .json()
      .catch(() => undefined);
    exchanges.push({
      path: url.pathname,
      sent: readSentRequest(url.pathname, body),
      status: response.status,
      answer,
    });
    return response;
  };
}

function modelOn(baseURL: string, name: string, api: Api): PreparedModel {
  const exchanges: Exchange[] = [];
  const client = new OpenAI({
    apiKey: "test",
    baseURL,
    maxRetries: 0,
    fetch: recordingFetch(exchanges),
  });
  return { model: openaiModel({ client, model: name, api }), exchanges };
}

async function fakeLane(api: Api): Promise<ServerLane> {
  const scripts = new Map<string, Script>();
  const malformed = new Map<string, Turn>();
  const fake: FakeOpenAI = await startFakeOpenAI({
    scriptFor: (request) => scripts.get(request.model),
    intercept: (request) => {
      const turn = malformed.get(String(request.body?.model));
      return turn === undefined ? undefined : wireAnswer(api, "", 0, turn);
    },
  });
  return {
    name: `the fake server, ${api === "chat" ? "Chat Completions" : "Responses API"}`,
    api,
    sendsRetryAfter: true,
    async prepare(model, turns) {
      const played = turns.map(scriptTurn);
      if (played.includes(undefined)) malformed.set(model, turns[0]!);
      else scripts.set(model, played as Script);
      return modelOn(fake.baseURL, model, api);
    },
    close: () => fake.close(),
  };
}

async function mockLlmLane(api: Api): Promise<ServerLane> {
  const mock: MockLlm = await startMockLlm();
  const path = api === "chat" ? "/v1/chat/completions" : "/v1/responses";
  return {
    name: `@dwmkerr/mock-llm, ${api === "chat" ? "Chat Completions" : "Responses API"}`,
    api,
    sendsRetryAfter: false,
    async prepare(model, turns) {
      await mock.configure(
        turns.map((turn, sequence) => ({
          path,
          model,
          sequence,
          ...wireAnswer(api, model, sequence, turn),
        })),
      );
      return modelOn(mock.baseURL, model, api);
    },
    close: () => mock.close(),
  };
}

/** The lanes, by how each is started: every server in both API shapes. */
export const SERVER_LANES: readonly { id: string; start(): Promise<ServerLane> }[] = [
  { id: "fake-chat", start: () => fakeLane("chat") },
  { id: "fake-responses", start: () => fakeLane("responses") },
  { id: "mock-llm-chat", start: () => mockLlmLane("chat") },
  { id: "mock-llm-responses", start: () => mockLlmLane("responses") },
];
