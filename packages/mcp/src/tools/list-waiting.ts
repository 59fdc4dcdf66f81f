/**
 * `list_waiting` (docs/architecture/mcp.md#tools): the runs waiting for a
 * person (or another system) to answer, oldest first, each with its token,
 * question and the JSON Schema its answer must match.
 */
import { z } from "zod";
import { WAITING_PAGE_LIMITS } from "../limits.js";
import type { ErrandMcpServices } from "../server/errand-services.js";
import type { ErrandTool } from "../server/register-tools.js";
import { TOOL_NAMES } from "./tool-names.js";

const ListWaitingArgs = z.object({
  runId: z.string().optional().describe("Only this run's waitpoints."),
  limit: z
    .number()
    .int()
    .min(1)
    .max(WAITING_PAGE_LIMITS.max)
    .optional()
    .describe(
      `Per page. Default ${WAITING_PAGE_LIMITS.default}, at most ${WAITING_PAGE_LIMITS.max}.`,
    ),
  cursor: z.string().optional().describe("The nextCursor of the previous page."),
});

/** The `list_waiting` tool over `services`. */
export function listWaitingTool(services: ErrandMcpServices): ErrandTool<typeof ListWaitingArgs> {
  return {
    name: TOOL_NAMES.listWaiting,
    title: "List runs waiting for an answer",
    description:
      "Lists the runs waiting for a person to answer, oldest first: { items: [{ token, runId, agent, question, answerSchema?, createdAt, timeoutAt? }], count, hasMore, nextCursor? }. Answer one with answer_waiting({ token, answer }): the answer must match answerSchema.",
    args: ListWaitingArgs,
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    async run({ runId, limit, cursor }) {
      const page = await services.errand.waitpoints.list({
        limit: limit ?? WAITING_PAGE_LIMITS.default,
        ...(runId === undefined ? {} : { runId }),
        ...(cursor === undefined ? {} : { cursor }),
      });
      return {
        ...page,
        ...(page.nextCursor === undefined
          ? {}
          : {
              nextAction: {
                tool: TOOL_NAMES.listWaiting,
                args: {
                  ...(runId === undefined ? {} : { runId }),
                  ...(limit === undefined ? {} : { limit }),
                  cursor: page.nextCursor,
                },
              },
            }),
      };
    },
  };
}
