/**
 * The recorded runs the evaluation tests evaluate: a `forecaster` agent on
 * the real `openai` client against the fake OpenAI server, whose answers
 * depend on the agent's instructions — `v1` looks the city up and answers
 * in lower case; `v2` looks it up the same way and answers in upper case
 * for the even cities; `v3` looks up tomorrow's weather instead, a call
 * no recorded run made — and a `lookup` tool that counts each run of its
 * handler in Redis. Test-only: not exported.
 */
import type { Script } from "@errand/core";
import { type Agent, defineAgent, defineTool, openaiModel } from "@errand/runtime";
import type { ChatCompletionRequest, FakeOpenAI } from "@errand/testing";
import type { Redis } from "ioredis";
import { z } from "zod";

/** The instructions of the recorded version, and of the candidate. */
export const V1_INSTRUCTIONS = "v1: look the city up, then answer in lower case.";
export const V2_INSTRUCTIONS = "v2: look the city up, then shout the answer for even cities.";
export const V3_INSTRUCTIONS = "v3: look tomorrow's weather up, then answer in lower case.";

/** The model name: one the default price table knows, so both sides have a cost. */
const MODEL = "gpt-4o-mini";

function textOf(content: unknown): string {
  return typeof content === "string" ? content : JSON.stringify(content ?? "");
}

/** The script answering `request`, by its system message (the instructions) and user message (the input). */
export function forecastScript(request: ChatCompletionRequest): Script | undefined {
  const system = textOf(request.messages.find((m) => m.role === "system")?.content);
  const user = textOf(request.messages.find((m) => m.role === "user")?.content);
  const { city, n } = JSON.parse(user) as { city: string; n: number };
  const shout = system.startsWith("v2") && n % 2 === 0;
  const answer = shout ? `SUNNY IN ${city.toUpperCase()}` : `sunny in ${city}`;
  const looked = system.startsWith("v3") ? `${city} tomorrow` : city;
  return [
    { call: [{ tool: "lookup", args: { city: looked } }] },
    { call: [{ tool: "structured_output", args: { answer, city } }] },
  ];
}

/** The Redis key counting the runs of `lookup`'s handler. */
export function lookupCounter(prefix: string): string {
  return `${prefix}:test:lookup-runs`;
}

/** The forecaster with `instructions`, its `lookup` counting in `redis`. */
export function forecaster(
  fake: FakeOpenAI,
  redis: Redis,
  prefix: string,
  instructions: string,
): Agent {
  const lookup = defineTool({
    name: "lookup",
    description: "Looks a city's weather up.",
    parameters: z.object({ city: z.string() }),
    handler: async ({ city }) => {
      await redis.incr(lookupCounter(prefix));
      return { city, sky: "sunny" };
    },
  });
  return defineAgent({
    name: "forecaster",
    instructions,
    model: openaiModel({ apiKey: "test", baseURL: fake.baseURL, model: MODEL }),
    tools: [lookup],
    outputSchema: z.object({ answer: z.string(), city: z.string() }),
  });
}
