/**
 * The agent of the Anthropic thinking resume test: Claude (the real
 * `@ai-sdk/anthropic` package, on the fake Anthropic server at `baseURL`)
 * with extended thinking on, a side-effect-free `note` tool for its first
 * step and an output schema. The worker processes define it; the test fires
 * it by name and plays its turns on the fake server.
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { aiSdkModel } from "@errand/ai-sdk";
import { type Agent, defineAgent, defineTool } from "@errand/runtime";
import { z } from "zod";

/** The agent's name, also the model id its requests carry. */
export const THINKING_AGENT = "claude-thinker";

const note = defineTool({
  name: "note",
  description: "Notes a finding.",
  parameters: z.object({ finding: z.string() }),
  handler: ({ finding }) => ({ noted: finding }),
});

/** The agent, on the Messages API of the server at `baseURL`. */
export function thinkingAgent(baseURL: string): Agent {
  return defineAgent({
    name: THINKING_AGENT,
    instructions: "Note what you find, then record your answer.",
    model: aiSdkModel(createAnthropic({ apiKey: "test", baseURL })(THINKING_AGENT), {
      providerOptions: { anthropic: { thinking: { type: "enabled", budgetTokens: 2048 } } },
    }),
    tools: [note],
    outputSchema: z.object({ answer: z.string() }),
    maxSteps: 4,
  });
}
