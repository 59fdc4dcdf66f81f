/**
 * Model lanes: one script played three ways, so that a test of the step loop
 * runs the same on the scripted model in process and over HTTP through
 * `openaiModel` against the fake server, on Chat Completions and on the
 * Responses API. Test-only.
 */
import type { Script } from "@errand/core";
import {
  type FakeOpenAI,
  readSentRequest,
  type SentRequest,
  startFakeOpenAI,
} from "@errand/testing";
import type { AgentOptions } from "../agent.js";
import { openaiModel } from "../openai/model.js";
import { scriptedModel } from "../scripted-model.js";

/** The way a lane plays scripts. */
export type LaneName = "scripted" | "chat" | "responses";

/** A started lane. */
export interface ModelLane {
  readonly name: LaneName;
  /** What makes an agent play `script` on this lane: its model (and, in process, its script). */
  agentOptions(script: Script): Pick<AgentOptions, "model" | "script">;
  /** The requests of the agents made with `options`, as sent over HTTP; none in process. */
  sent(options: Pick<AgentOptions, "model">): SentRequest[];
  close(): Promise<void>;
}

const inProcess: ModelLane = {
  name: "scripted",
  agentOptions: (script) => ({ model: scriptedModel(), script }),
  sent: () => [],
  close: async () => undefined,
};

async function overHttp(api: "chat" | "responses"): Promise<ModelLane> {
  const scripts = new Map<string, Script>();
  const fake: FakeOpenAI = await startFakeOpenAI({
    scriptFor: (request) => scripts.get(request.model),
  });
  return {
    name: api,
    agentOptions(script) {
      const model = `${api}-script-${scripts.size + 1}`;
      scripts.set(model, script);
      return { model: openaiModel({ apiKey: "test", baseURL: fake.baseURL, model, api }) };
    },
    sent({ model }) {
      const name = typeof model === "string" ? model : model.name.replace(/^openai:/, "");
      return fake.requests
        .map((request) => readSentRequest(request.path, request.body))
        .filter((request) => request.model === name);
    },
    close: () => fake.close(),
  };
}

/** Starts the lane `name`. */
export function startLane(name: LaneName): Promise<ModelLane> {
  return name === "scripted" ? Promise.resolve(inProcess) : overHttp(name);
}
