/**
 * `cancel_runs` (docs/architecture/mcp.md#tools): cancels a batch of runs
 * (with `cascade`, their descendants too), one result per run: a run that
 * cannot be cancelled fails alone. Cancelling a settled run changes nothing
 * and is no error (`requested: false`).
 */
import { batch } from "@errand/core/ops";
import { z } from "zod";
import { MAX_BATCH_RUNS } from "../limits.js";
import { itemFailure } from "../results/tool-answer.js";
import type { ErrandMcpServices } from "../server/errand-services.js";
import type { ErrandTool } from "../server/register-tools.js";
import { TOOL_NAMES } from "./tool-names.js";

const CancelRunsArgs = z.object({
  runIds: z.array(z.string()).min(1).max(MAX_BATCH_RUNS).describe("The runs to cancel."),
  reason: z.string().max(1_000).optional().describe("Why, kept in the runs' logs."),
  cascade: z
    .boolean()
    .optional()
    .describe("Cancel every descendant of each run too. Default false."),
});

/** The `cancel_runs` tool over `services`. */
export function cancelRunsTool(services: ErrandMcpServices): ErrandTool<typeof CancelRunsArgs> {
  return {
    name: TOOL_NAMES.cancelRuns,
    title: "Cancel runs",
    description:
      "Cancels runs (cascade: true, their descendants too): { total, succeeded, failed, results: [{ runId, ok, status, requested, descendants?, error?, retryable? }], nextAction }. requested is false for a run that had already settled (nothing changed). A running run settles cancelled as soon as its worker hears it: nextAction waits for that.",
    args: CancelRunsArgs,
    annotations: {
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: false,
    },
    async run({ runIds, reason, cascade }) {
      const results = await Promise.all(
        runIds.map(async (runId) => {
          try {
            const cancelled = await services.errand.cancel(runId, {
              by: "mcp",
              ...(reason === undefined ? {} : { reason }),
              ...(cascade === undefined ? {} : { cascade }),
            });
            const descendants = cancelled.descendants?.length;
            return {
              runId,
              ok: true,
              status: cancelled.status,
              requested: cancelled.requested,
              ...(descendants === undefined ? {} : { descendants }),
            };
          } catch (error) {
            return {
              runId,
              ...itemFailure(error, TOOL_NAMES.cancelRuns, services.reportUnexpected),
            };
          }
        }),
      );
      const cancelled = results.filter((result) => result.ok).map((result) => result.runId);
      return {
        ...batch(results),
        ...(cancelled.length === 0
          ? {}
          : { nextAction: { tool: TOOL_NAMES.waitRuns, args: { runIds: cancelled } } }),
      };
    },
  };
}
