/**
 * The `collect_agents` tool (docs/architecture/tool-results.md#parents): a parent agent reads its children's
 * results as a batch — each child's status, output or text, or error — a
 * page at a time (`hasMore`, `nextCursor`), each page with the counts of
 * every child asked about. With `wait: true` and
 * children still running, the run parks: its job leaves the worker, freeing
 * the slot, and the run resumes from its log once they have all settled,
 * running this call again to answer.
 */
import { defineTool, ParkRequest, type Tool } from "@errand/runtime";
import { z } from "zod";
import { MAX_FIRE_MANY } from "../client/fire-spec.js";
import { COLLECT_LIMITS, COLLECT_TOOL } from "../reads/collect.js";
import { parentServicesOf } from "./parent-services.js";

/** The arguments of `collect_agents`. */
const CollectAgentsArgs = z.object({
  runIds: z
    .array(z.string())
    .min(1)
    .max(MAX_FIRE_MANY)
    .optional()
    .describe(
      "The runs to collect. Default: every child you spawned, in the order they were created.",
    ),
  wait: z
    .boolean()
    .optional()
    .describe("Wait until every one of these runs has finished before answering. Default false."),
  limit: z
    .number()
    .int()
    .min(1)
    .max(COLLECT_LIMITS.max)
    .optional()
    .describe(`Results per page. Default ${COLLECT_LIMITS.default}.`),
  cursor: z
    .string()
    .optional()
    .describe("The nextCursor of the previous page, to read the next one."),
});

/** A `collect_agents` tool. */
export function createCollectAgentsTool(): Tool {
  return defineTool({
    name: COLLECT_TOOL,
    description:
      "Collects the results of the sub-agents you spawned: { total, succeeded, failed, cancelled, pending, count, results: [{ runId, ok, status, output?, text?, error?, viewUrl? }], hasMore, nextCursor? }. total, succeeded, failed, cancelled and pending count every run you asked about, on every page; results holds this page's count of them, one per run, status succeeded, failed, cancelled or pending. Without runIds it collects all your children. With wait: true it answers only once every one of them has finished. While hasMore is true, call it again with cursor set to nextCursor.",
    parameters: CollectAgentsArgs,
    handler: async (args, ctx) => {
      const outcome = await parentServicesOf(ctx, COLLECT_TOOL).collect(
        { parentRunId: ctx.runId, ...args },
        ctx.signal,
      );
      if ("page" in outcome) return outcome.page;
      const { total } = outcome;
      const runs = total === 1 ? "run" : "runs";
      if ("waitForChildren" in outcome) {
        const pending = outcome.waitForChildren;
        throw ParkRequest.forChildren(
          `waiting for ${pending} of ${total} ${runs} to settle`,
          pending,
        );
      }
      const { waitFor } = outcome;
      throw new ParkRequest(`waiting for ${waitFor.length} of ${total} ${runs} to settle`, waitFor);
    },
  });
}

/** `collect_agents`: give it to a parent agent beside `spawn_agents` (or use `parentTools()`). */
export const collectAgentsTool: Tool = createCollectAgentsTool();
