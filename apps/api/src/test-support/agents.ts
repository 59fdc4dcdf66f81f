/**
 * The agents of the API's tests and its docs' walk-throughs, on the
 * scripted model: `greeter` (a description and an input schema, answers
 * with text at once), `approver` (asks a person, then records their
 * answer), and `scripted` (plays `input.script`: sleeps to be cancelled,
 * fails, streams). Test-only: not exported.
 */
import { type Agent, askTool, defineAgent, scriptedModel } from "@errand/runtime";
import { z } from "zod";

/** The answer `approver`'s question takes. */
const Approval = z.object({ approve: z.boolean(), note: z.string() });

/** The agents a test's worker runs. */
export function apiTestAgents(): Agent[] {
  const model = scriptedModel();
  return [
    defineAgent({
      name: "greeter",
      description: "Greets the person its input names.",
      instructions: "Greet the person.",
      model,
      inputSchema: z.object({ name: z.string().min(1) }),
      script: [{ say: "Hello! Nice to meet you." }],
    }),
    defineAgent({
      name: "approver",
      description: "Asks a person to approve, then says what they answered.",
      instructions: "Ask for approval.",
      model,
      tools: [askTool({ answerSchema: Approval })],
      script: [
        { call: [{ tool: "ask", args: { question: "Ship it?" } }] },
        { say: "The person answered." },
      ],
    }),
    defineAgent({
      name: "scripted",
      description: "Plays the script its input carries.",
      instructions: "Follow your script.",
      model,
      scriptFromInput: true,
      maxSteps: 8,
    }),
  ];
}
