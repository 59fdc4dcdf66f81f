/**
 * `get_run` (docs/architecture/mcp.md#tools): one run — its summary, its full
 * result (attempts, steps, usage, times), or its events a page at a time
 * (by seq, each event's data held to `EVENT_DATA_CHARS`).
 */
import type { RunEvent } from "@errand/core";
import { ErrandError } from "@errand/core";
import { decodeCursor, encodeCursor } from "@errand/core/ops";
import { z } from "zod";
import { EVENT_DATA_CHARS, EVENT_PAGE_LIMITS, INLINE_CHARS } from "../limits.js";
import { collectedOf, runView } from "../results/run-view.js";
import type { ErrandMcpServices } from "../server/errand-services.js";
import type { ErrandTool } from "../server/register-tools.js";
import { TOOL_NAMES } from "./tool-names.js";

const GetRunArgs = z.object({
  runId: z.string().min(1).describe("The run."),
  detail: z
    .enum(["summary", "full", "events"])
    .optional()
    .describe(
      `summary (default): status, error, output or text up to ${INLINE_CHARS.summary} characters; full: up to ${INLINE_CHARS.full}, with agent, attempts, steps, usage and times; events: its log, a page at a time.`,
    ),
  limit: z
    .number()
    .int()
    .min(1)
    .max(EVENT_PAGE_LIMITS.max)
    .optional()
    .describe(
      `Events per page (detail: events). Default ${EVENT_PAGE_LIMITS.default}, at most ${EVENT_PAGE_LIMITS.max}.`,
    ),
  cursor: z.string().optional().describe("The nextCursor of the previous page of events."),
});
type GetRunArgs = z.infer<typeof GetRunArgs>;

/** The seq a cursor of events points after. */
function afterSeqOf(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const [seq] = decodeCursor(cursor);
  if (typeof seq !== "number" || !Number.isInteger(seq) || seq < 1) {
    throw new ErrandError(
      "invalid_spec",
      "invalid cursor: pass the nextCursor of the previous page of this run's events",
    );
  }
  return seq;
}

/** One event as the page shows it: its data whole while short. */
function eventView(event: RunEvent) {
  const json = JSON.stringify(event.data) ?? "null";
  const data =
    json.length <= EVENT_DATA_CHARS
      ? { data: event.data }
      : { dataPreview: json.slice(0, EVENT_DATA_CHARS), dataTruncated: true };
  return { seq: event.seq, type: event.type, at: event.at, ...data };
}

async function eventsPage(services: ErrandMcpServices, args: GetRunArgs) {
  const limit = args.limit ?? EVENT_PAGE_LIMITS.default;
  const events: RunEvent[] = [];
  for await (const event of services.errand.events(args.runId, {
    afterSeq: afterSeqOf(args.cursor),
  })) {
    events.push(event);
    if (events.length > limit) break;
  }
  const items = events.slice(0, limit).map(eventView);
  const hasMore = events.length > limit;
  const last = items.at(-1);
  const nextCursor = hasMore && last !== undefined ? encodeCursor([last.seq]) : undefined;
  return {
    runId: args.runId,
    items,
    count: items.length,
    hasMore,
    ...(nextCursor === undefined
      ? {}
      : {
          nextCursor,
          nextAction: {
            tool: TOOL_NAMES.getRun,
            args: { runId: args.runId, detail: "events", limit, cursor: nextCursor },
          },
        }),
  };
}

/** The `get_run` tool over `services`. */
export function getRunTool(services: ErrandMcpServices): ErrandTool<typeof GetRunArgs> {
  return {
    name: TOOL_NAMES.getRun,
    title: "Get a run",
    description:
      "One run: { runId, ok, status, output? | outputPreview?, text?, error?, retryable?, viewUrl?, resultRef? } (detail: summary, the default, or full, which adds agent, attempts, steps, usage and times), or with detail: events its log as { items: [{ seq, type, at, data | dataPreview }], count, hasMore, nextCursor? }. A run not settled yet has status pending and a nextAction that waits for it.",
    args: GetRunArgs,
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    async run(args) {
      if (args.detail === "events") return eventsPage(services, args);
      const result = await services.errand.result(args.runId);
      if (result === undefined) {
        return {
          runId: args.runId,
          ok: false,
          status: "pending",
          nextAction: { tool: TOOL_NAMES.waitRuns, args: { runIds: [args.runId] } },
        };
      }
      const full = args.detail === "full";
      const view = runView(collectedOf(result), INLINE_CHARS[full ? "full" : "summary"]);
      if (!full) return view;
      const {
        agent,
        parentRunId,
        rootRunId,
        attempts,
        steps,
        usage,
        costUsd,
        createdAt,
        startedAt,
        settledAt,
      } = result;
      return {
        ...view,
        agent,
        ...(parentRunId === undefined ? {} : { parentRunId }),
        rootRunId,
        attempts,
        steps,
        usage,
        ...(costUsd === undefined ? {} : { costUsd }),
        createdAt,
        ...(startedAt === undefined ? {} : { startedAt }),
        ...(settledAt === undefined ? {} : { settledAt }),
      };
    },
  };
}
