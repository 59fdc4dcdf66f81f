/**
 * `answer_waiting` (docs/architecture/mcp.md#tools): answers one waiting run.
 * An answer that does not match the waitpoint's schema is an error answer
 * naming the issues (`invalid_answer`; the run keeps waiting); a second
 * answer, one after the timeout or after the run settled are refused with
 * their codes.
 */
import { z } from "zod";
import type { ErrandMcpServices } from "../server/errand-services.js";
import type { ErrandTool } from "../server/register-tools.js";
import { TOOL_NAMES } from "./tool-names.js";

const AnswerWaitingArgs = z.object({
  token: z.string().min(1).describe("The waitpoint's token, as list_waiting shows it."),
  answer: z.unknown().describe("The answer: any JSON value matching the waitpoint's answerSchema."),
  answeredBy: z.string().max(256).optional().describe("Who answers, kept in the run's log."),
});

/** The `answer_waiting` tool over `services`. */
export function answerWaitingTool(
  services: ErrandMcpServices,
): ErrandTool<typeof AnswerWaitingArgs> {
  return {
    name: TOOL_NAMES.answerWaiting,
    title: "Answer a waiting run",
    description:
      "Answers a run waiting for a person: { token, runId, answered: true, answeredAt, nextAction }. The run resumes with the answer; nextAction waits for it. An answer not matching the answerSchema is refused (invalid_answer, with the issues) and the run keeps waiting.",
    args: AnswerWaitingArgs,
    annotations: {
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: false,
    },
    async run({ token, answer, answeredBy }) {
      const completed = await services.errand.waitpoints.complete(
        token,
        answer ?? null,
        answeredBy === undefined ? {} : { answeredBy },
      );
      return {
        ...completed,
        answered: true,
        nextAction: { tool: TOOL_NAMES.waitRuns, args: { runIds: [completed.runId] } },
      };
    },
  };
}
