/**
 * `wait_runs` (docs/architecture/mcp.md#tools): waits a bounded time (default
 * 30 s, at most 60 s) for a page of runs to settle, reporting progress while
 * it waits when the caller sent a progress token, then answers with the
 * counts of every run asked about, the page's results held to the size
 * rules, `hasMore`, `nextCursor`, and the next calls: `nextAction` (wait
 * again for the page's pending runs and the ones after it, or read the next
 * page) and `retryAction` (fire again exactly the page's failed runs that
 * are retryable). A page ends early rather than pass `ANSWER_BYTE_BUDGET`.
 */
import type { CollectResult } from "@errand/engine";
import { z } from "zod";
import {
  ANSWER_BYTE_BUDGET,
  MAX_BATCH_RUNS,
  PROGRESS_INTERVAL_MS,
  WAIT_PAGE_LIMITS,
  WAIT_SECONDS,
} from "../limits.js";
import { Detail, inlineChars } from "../results/detail.js";
import { runView } from "../results/run-view.js";
import { answerBytes } from "../results/tool-answer.js";
import type { ErrandMcpServices } from "../server/errand-services.js";
import type { ErrandTool, ToolExtra } from "../server/register-tools.js";
import { positionCursor, positionOf } from "./run-pages.js";
import { TOOL_NAMES } from "./tool-names.js";

const WaitRunsArgs = z.object({
  runIds: z
    .array(z.string())
    .min(1)
    .max(MAX_BATCH_RUNS)
    .describe("The runs to wait for, as start_runs returned them."),
  waitSeconds: z
    .number()
    .min(0)
    .max(WAIT_SECONDS.max)
    .optional()
    .describe(
      `How long to wait for this page's runs to settle. Default ${WAIT_SECONDS.default}, at most ${WAIT_SECONDS.max}; 0 answers at once.`,
    ),
  limit: z
    .number()
    .int()
    .min(1)
    .max(WAIT_PAGE_LIMITS.max)
    .optional()
    .describe(
      `Results per page. Default ${WAIT_PAGE_LIMITS.default}, at most ${WAIT_PAGE_LIMITS.max}.`,
    ),
  cursor: z.string().optional().describe("The nextCursor of the previous page of the same runIds."),
  detail: Detail,
});

/** Waits up to `waitMs` for the page of `order` to settle, telling progress over the whole set. */
async function waitForPage(
  services: ErrandMcpServices,
  order: readonly string[],
  limit: number,
  waitMs: number,
  extra: ToolExtra,
): Promise<CollectResult> {
  const deadline = Date.now() + waitMs;
  const progressToken = extra._meta?.progressToken;
  let reported = -1;
  for (;;) {
    const slice = Math.max(0, Math.min(PROGRESS_INTERVAL_MS, deadline - Date.now()));
    const page = await services.errand.collect(order, { limit, waitMs: slice });
    const settled = page.total - page.pending;
    if (progressToken !== undefined && settled > reported) {
      reported = settled;
      await extra.sendNotification({
        method: "notifications/progress",
        params: {
          progressToken,
          progress: settled,
          total: page.total,
          message: `${settled} of ${page.total} runs settled`,
        },
      });
    }
    const pageSettled = page.results.every((run) => run.status !== "pending");
    if (pageSettled || Date.now() >= deadline || extra.signal.aborted) return page;
  }
}

/** The `wait_runs` tool over `services`. */
export function waitRunsTool(services: ErrandMcpServices): ErrandTool<typeof WaitRunsArgs> {
  return {
    name: TOOL_NAMES.waitRuns,
    title: "Wait for runs",
    description: `Waits up to waitSeconds (default ${WAIT_SECONDS.default}, at most ${WAIT_SECONDS.max}) for runs to settle and collects their results: { total, succeeded, failed, cancelled, pending, count, results: [{ runId, ok, status, output? | outputPreview?, text?, error?, retryable?, viewUrl?, outputTruncated?, textTruncated?, resultRef? }], hasMore, nextCursor?, nextAction?, retryAction? }. The counts are of every run asked about; results holds this page (limit default ${WAIT_PAGE_LIMITS.default}, at most ${WAIT_PAGE_LIMITS.max}). Call nextAction next while it is present: it waits again for the runs still pending, or reads the next page. retryAction, when present, starts exactly this page's failed runs that may succeed if fired again. An output or text cut short carries resultRef.uri: read that resource for the whole.`,
    args: WaitRunsArgs,
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    async run(args, extra) {
      const { runIds } = args;
      const start = positionOf(args.cursor, runIds);
      const limit = Math.min(args.limit ?? WAIT_PAGE_LIMITS.default, runIds.length - start);
      const order = [...runIds.slice(start), ...runIds.slice(0, start)];
      const waitMs = 1000 * (args.waitSeconds ?? WAIT_SECONDS.default);
      const page = await waitForPage(services, order, limit, waitMs, extra);
      const views = page.results.map((run) => runView(run, inlineChars(args.detail)));
      // The next call keeps the caller's page size and detail.
      const kept = {
        ...(args.limit === undefined ? {} : { limit: args.limit }),
        ...(args.detail === undefined ? {} : { detail: args.detail }),
      };

      const answerOf = (count: number) => {
        const onPage = page.results.slice(0, count);
        const end = start + count;
        const hasMore = end < runIds.length;
        const nextCursor = hasMore ? positionCursor(end, runIds[end - 1] as string) : undefined;
        const pending = onPage.filter((run) => run.status === "pending").map((run) => run.runId);
        const retry = onPage.filter((run) => run.status === "failed" && run.retryable === true);
        const nextAction =
          pending.length > 0
            ? {
                tool: TOOL_NAMES.waitRuns,
                args: { runIds: [...pending, ...runIds.slice(end)], ...kept },
              }
            : nextCursor === undefined
              ? undefined
              : { tool: TOOL_NAMES.waitRuns, args: { runIds, cursor: nextCursor, ...kept } };
        return {
          total: page.total,
          succeeded: page.succeeded,
          failed: page.failed,
          cancelled: page.cancelled,
          pending: page.pending,
          count,
          results: views.slice(0, count),
          hasMore,
          ...(nextCursor === undefined ? {} : { nextCursor }),
          ...(nextAction === undefined ? {} : { nextAction }),
          ...(retry.length === 0
            ? {}
            : {
                retryAction: {
                  tool: TOOL_NAMES.startRuns,
                  args: { runs: retry.map((run) => ({ retryOf: run.runId })) },
                },
              }),
        };
      };
      // What each result adds to the message, escaped twice (into the text block, into JSON-RPC).
      const itemBytes = views.map((view) =>
        Buffer.byteLength(JSON.stringify(JSON.stringify(view))),
      );
      let count = views.length;
      let answer = answerOf(count);
      let excess = answerBytes(answer) - ANSWER_BYTE_BUDGET;
      while (excess > 0 && count > 1) {
        for (let dropped = 0; count > 1 && dropped < excess; ) {
          count -= 1;
          dropped += itemBytes[count] ?? 0;
        }
        answer = answerOf(count);
        excess = answerBytes(answer) - ANSWER_BYTE_BUDGET;
      }
      return answer;
    },
  };
}
