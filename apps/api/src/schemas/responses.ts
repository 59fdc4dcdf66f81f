/**
 * The answers of the API, as zod schemas: the library's own shapes
 * (`RunResult`, `collect`'s page, `list`'s page, `fireMany`'s batch, …), one
 * vocabulary with `errand`'s calls and the parent tools
 * (docs/architecture/tool-results.md#the-result-vocabulary). They describe
 * the answers in the OpenAPI document; the server does not parse its own
 * answers with them.
 */
import { BatchCounts, NextAction, PageInfo, RunEvent, RunResult } from "@errand/core";
import { z } from "@hono/zod-openapi";

const ViewUrl = z
  .string()
  .optional()
  .openapi({ description: "The run's page on the dashboard, when the API was given its URL." });

/** An error answer: every 4xx and 5xx of the API. */
export const ApiError = z
  .object({
    error: z.object({
      code: z.string().openapi({ description: "errand's error code, stable" }),
      message: z.string(),
      retryable: z.boolean().openapi({ description: "Whether the same request may succeed later" }),
      fix: z.string().optional().openapi({ description: "What to change, when the caller can" }),
      issues: z
        .array(z.object({ path: z.string(), message: z.string() }))
        .optional()
        .openapi({ description: "What is wrong with each part of a refused request or input" }),
      runId: z.string().optional().openapi({
        description:
          "The run a refused fire made all the same (a run no replica confirmed in time): sending the request again with the same Idempotency-Key answers this run",
      }),
    }),
  })
  .openapi("ApiError");
export type ApiError = z.infer<typeof ApiError>;

const FireWarning = z.object({ code: z.literal("no_live_worker"), message: z.string() });

/** `fire`'s answer. */
export const FireResult = z
  .object({
    runId: z.string(),
    deduplicated: z.literal(true).optional(),
    warnings: z.array(FireWarning).optional(),
    viewUrl: ViewUrl,
  })
  .openapi("FireResult");

/** `fireMany`'s answer: `{ total, succeeded, failed, results }`, one result per spec in order. */
export const FireBatchResult = BatchCounts.extend({
  results: z.array(
    z.object({
      ok: z.boolean(),
      runId: z.string().optional(),
      deduplicated: z.literal(true).optional(),
      warnings: z.array(FireWarning).optional(),
      error: z.object({ code: z.string(), message: z.string() }).optional(),
      retryable: z.boolean().optional(),
      viewUrl: ViewUrl,
    }),
  ),
}).openapi("FireBatchResult");

/** A run as far as its log goes: its `RunResult` once settled, else the same fields so far. */
export const RunSoFar = RunResult.extend({
  status: z.enum(["queued", "running", "succeeded", "failed", "cancelled"]),
  waiting: z
    .object({
      reason: z.string(),
      since: z.string(),
      runs: z.number().int(),
      waitpoint: z
        .object({
          token: z.string(),
          question: z.string(),
          answerSchema: z.record(z.string(), z.unknown()).optional(),
          timeoutAt: z.string().optional(),
        })
        .optional(),
    })
    .optional(),
  viewUrl: ViewUrl,
}).openapi("Run", {
  description:
    "`RunResult` once the run settled (`succeeded`, `failed`, `cancelled`); while it is `queued` or `running`, the same fields so far and, while it is parked, what it waits for.",
});

/** One run of a collect page. */
const CollectedRun = z.object({
  runId: z.string(),
  ok: z.boolean(),
  status: z.enum(["succeeded", "failed", "cancelled", "pending", "not_found"]),
  output: z.unknown().optional(),
  text: z.string().optional(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
  retryable: z.boolean().optional(),
  viewUrl: ViewUrl,
});

/** `collect`'s page: the counts of every run asked about, beside one page of results. */
export const CollectResult = z
  .object({
    total: z.number().int(),
    succeeded: z.number().int(),
    failed: z.number().int(),
    cancelled: z.number().int(),
    pending: z.number().int(),
    count: z.number().int(),
    results: z.array(CollectedRun),
    hasMore: z.boolean(),
    nextCursor: z.string().optional(),
    nextAction: NextAction.optional(),
  })
  .openapi("CollectResult");

/** One run of a list page. */
const RunSummary = z.object({
  runId: z.string(),
  agent: z.string(),
  status: z.enum(["queued", "running", "succeeded", "failed", "cancelled"]),
  parentRunId: z.string().optional(),
  rootRunId: z.string(),
  tenant: z.string().optional(),
  createdAt: z.string(),
  settledAt: z.string().optional(),
  error: z.object({ code: z.string() }).optional(),
  viewUrl: ViewUrl,
});

/** `list`'s page. */
export const RunPage = PageInfo.extend({ items: z.array(RunSummary) }).openapi("RunPage");

/** A page of a run's events (the events of its log, in seq order). */
export const EventPage = PageInfo.extend({ items: z.array(RunEvent) }).openapi("EventPage");

/** `cancel`'s answer. */
const CancelResultBase = z.object({
  runId: z.string(),
  status: z.enum(["queued", "running", "succeeded", "failed", "cancelled"]),
  requested: z.boolean(),
});
export const CancelResult = CancelResultBase.extend({
  descendants: z.array(CancelResultBase).optional(),
}).openapi("CancelResult");

const WaitingWaitpoint = z.object({
  token: z.string(),
  runId: z.string(),
  agent: z.string(),
  question: z.string(),
  answerSchema: z.record(z.string(), z.unknown()).optional(),
  createdAt: z.string(),
  timeoutAt: z.string().optional(),
});

/** `waitpoints.list`'s page. */
export const WaitpointPage = PageInfo.extend({ items: z.array(WaitingWaitpoint) }).openapi(
  "WaitpointPage",
);

/** `waitpoints.complete`'s answer. */
export const CompletedWaitpoint = z
  .object({ token: z.string(), runId: z.string(), answeredAt: z.string() })
  .openapi("CompletedWaitpoint");

/** One agent as the registry knows it. */
export const AgentInfo = z
  .object({
    name: z.string(),
    description: z.string().optional(),
    inputSchema: z.record(z.string(), z.unknown()).optional(),
    outputSchema: z.record(z.string(), z.unknown()).optional(),
    versions: z.array(
      z.object({
        version: z.string(),
        live: z.boolean(),
        lastSeenAt: z.string(),
        waitingRuns: z.number().int(),
      }),
    ),
    liveWorkers: z.number().int().openapi({ description: "Workers that run it and beat lately" }),
  })
  .openapi("Agent");

/** The agents page (every agent on one page). */
export const AgentPage = PageInfo.extend({ items: z.array(AgentInfo) }).openapi("AgentPage");
