/**
 * The reasoning agents of the resume test: one per way the Responses API
 * keeps a conversation, each asking for reasoning, with a side-effect-free
 * `note` tool for its first step. The worker processes define them; the test
 * fires them by name and plays their turns on the fake server.
 */
import {
  type Agent,
  defineAgent,
  defineTool,
  openaiModel,
  type ResponsesHistory,
} from "@errand/runtime";
import { z } from "zod";

/** Each agent's name (also the model name its requests carry), by history. */
export const REASONING_AGENTS: Record<ResponsesHistory, string> = {
  resend: "reasoner-resend",
  "previous-response": "reasoner-chained",
};

/** What every run of them records. */
const Verdict = z.object({ answer: z.string() });

const note = defineTool({
  name: "note",
  description: "Notes a finding.",
  parameters: z.object({ finding: z.string() }),
  handler: ({ finding }) => ({ noted: finding }),
});

/** The agents, on the Responses API of the server at `baseURL`. */
export function reasoningAgents(baseURL: string): Agent[] {
  return Object.entries(REASONING_AGENTS).map(([history, name]) =>
    defineAgent({
      name,
      instructions: "Note what you find, then record your answer.",
      model: openaiModel({
        apiKey: "test",
        baseURL,
        model: name,
        api: "responses",
        history: history as ResponsesHistory,
      }),
      modelSettings: { reasoning: { effort: "high", summary: "auto" } },
      tools: [note],
      outputSchema: Verdict,
      maxSteps: 4,
    }),
  );
}
