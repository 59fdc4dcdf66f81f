/**
 * The dashboard's routes on Hono: the JSON API under `/api`, two
 * server-sent-event streams, the actions (cancel one run, a selection or
 * the open runs a filter matches, replay; re-run a selection or the runs a
 * filter matches), the schedules (`schedule-routes.ts`), the page, and the probes
 * `/livez` and `/readyz` (`health-routes.ts`: the only routes that need no
 * token), and `/metrics` for Prometheus (`metrics-route.ts`). A request body over 16 KiB is refused before it is read
 * (`body-limit.ts`); searches and live streams beyond their caps are refused
 * with 503 (`admission.ts`). Every answer carries headers that keep it from
 * being framed or sniffed, and a content security policy that allows only
 * the dashboard's own scripts, styles and connections.
 */

import { ErrandError, redactSecrets } from "@errand/core";
import { runNotFound } from "@errand/core/ops";
import type { RunLogFollower } from "@errand/engine/ops";
import { isLiveOffset } from "@errand/store/ops";
import { type Context, Hono } from "hono";
import { BulkCancelBody, cancelRuns } from "../actions/bulk-cancel.js";
import { BulkRerunBody, rerunRuns } from "../actions/bulk-rerun.js";
import {
  AnswerBody,
  answerWaitpoint,
  CancelBody,
  cancelRun,
  replayRun,
} from "../actions/run-actions.js";
import type { DashboardContext } from "../context.js";
import type { LiveStreams } from "../live/live-streams.js";
import type { OverviewHub } from "../live/overview-hub.js";
import { streamDeltas } from "../live/run-deltas.js";
import { streamRun } from "../live/run-live.js";
import { readBlob } from "../reads/blob.js";
import type { OverviewReader } from "../reads/overview.js";
import { readEventsPage, readFullEvent } from "../reads/run-events.js";
import { readRunTree } from "../reads/run-tree.js";
import { withUsage } from "../reads/run-usage.js";
import { readRunDetail, requireRunId } from "../reads/run-view.js";
import { readRunWaterfall } from "../reads/run-waterfall.js";
import type { SearchMetadataReader } from "../reads/search-metadata.js";
import { searchRuns } from "../reads/search-runs.js";
import { actionBody } from "./action-body.js";
import { type Admission, refuseBusy } from "./admission.js";
import { answerError, apiError } from "./api-error.js";
import { limitRequestBody } from "./body-limit.js";
import { addHealthRoutes } from "./health-routes.js";
import { addMetricsRoute } from "./metrics-route.js";
import type { PageFile } from "./page-files.js";
import { listOptionsOf, numberParam, wholeParam } from "./query.js";
import { addScheduleRoutes } from "./schedule-routes.js";
import type { Security } from "./security.js";

/** What the routes use. */
export interface AppParts {
  context: DashboardContext;
  security: Security;
  overview: OverviewReader;
  hub: OverviewHub;
  live: LiveStreams;
  follower: RunLogFollower;
  /** The searches running (at most `maxConcurrentSearches`). */
  searches: Admission;
  searchMetadata: SearchMetadataReader;
  page: ReadonlyMap<string, PageFile>;
  /** True once the dashboard is closing: `/readyz` then answers 503. */
  isClosing(): boolean;
}

/** The `Retry-After` of a search refused beyond `maxConcurrentSearches`. */
export const SEARCH_RETRY_AFTER_SECONDS = 2;

/** `GET /api/session`: what the page needs to know about this dashboard. */
export interface SessionInfo {
  readOnly: boolean;
  /** The token actions carry in the `X-Errand-Csrf` header. */
  csrfToken: string;
  /** Whether requests need the dashboard's token. */
  tokenRequired: boolean;
  /** The deployment's key prefix. */
  prefix: string;
}

const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join("; ");

const PAGE_NOT_BUILT =
  "The dashboard's page has not been built: run `pnpm --filter @errand/dashboard build`. The JSON API under /api works without it.\n";

/** The Hono app of one dashboard. */
export function createApp(parts: AppParts): Hono {
  const { context, security, live } = parts;
  const app = new Hono();

  app.onError((error, c) => {
    const answer = answerError(c, error);
    if (answer.status >= 500)
      context.options.logger.error({ err: error, path: c.req.path }, "dashboard request failed");
    return answer;
  });
  app.use(async (c, next) => {
    await next();
    c.header("Content-Security-Policy", CONTENT_SECURITY_POLICY);
    c.header("X-Content-Type-Options", "nosniff");
    c.header("X-Frame-Options", "DENY");
    c.header("Referrer-Policy", "no-referrer");
  });
  app.use(limitRequestBody, security.checkHost);
  addHealthRoutes(app, { context, isClosing: parts.isClosing });
  app.use(security.authenticate);

  app.get("/api/session", (c) => {
    const session: SessionInfo = {
      readOnly: context.options.readOnly,
      csrfToken: security.csrfToken,
      tokenRequired: context.options.token !== undefined,
      prefix: context.keys.prefix,
    };
    c.header("Cache-Control", "no-store");
    return c.json(session);
  });

  app.get("/api/overview", async (c) => c.json(await parts.overview.read()));
  addMetricsRoute(app, context);

  app.get("/api/live", (c) => live.open(c, (stream) => parts.hub.serve(stream)));

  /** Answers `search()` in one of the searches' places, or 503 `busy` when all are taken. */
  async function inSearchPlace(c: Context, search: () => Promise<unknown>): Promise<Response> {
    const release = parts.searches.tryEnter();
    if (release === undefined) {
      return refuseBusy(
        c,
        `this dashboard runs ${context.options.maxConcurrentSearches} searches at once; try again shortly`,
        SEARCH_RETRY_AFTER_SECONDS,
      );
    }
    try {
      return c.json(await search());
    } finally {
      release();
    }
  }

  app.get("/api/runs", async (c) => {
    const query = c.req.query();
    const options = listOptionsOf(query);
    const q = query.q?.trim();
    if (q === undefined || q === "") {
      return c.json(await withUsage(context, await context.errand.list(options)));
    }
    return inSearchPlace(c, async () =>
      withUsage(context, await searchRuns(context, parts.searchMetadata, { ...options, q })),
    );
  });

  app.get("/api/evaluations", async (c) => {
    const { limit, cursor } = c.req.query();
    return c.json(
      await context.errand.evaluations.list({
        ...(limit === undefined ? {} : { limit: Number(limit) }),
        ...(cursor === undefined ? {} : { cursor }),
      }),
    );
  });

  app.get("/api/evaluations/:evaluationId", async (c) => {
    const evaluationId = c.req.param("evaluationId");
    const evaluation = await context.errand.evaluations.get(evaluationId);
    if (evaluation === undefined) {
      throw new ErrandError("not_found", `there is no evaluation ${evaluationId}`);
    }
    // Both sides' tool calls hold arguments and results as logged: shown redacted, as every value the page shows.
    return c.json(redactSecrets(evaluation));
  });

  app.get("/api/runs/:runId", async (c) =>
    c.json(await readRunDetail(context, c.req.param("runId"))),
  );

  app.get("/api/runs/:runId/events", async (c) => {
    const limit = numberParam(c.req.query("limit"));
    const cursor = c.req.query("cursor");
    const options = {
      ...(limit === undefined ? {} : { limit }),
      ...(cursor === undefined || cursor === "" ? {} : { cursor }),
    };
    return c.json(await readEventsPage(context, c.req.param("runId"), options));
  });

  app.get("/api/runs/:runId/events/:seq", async (c) => {
    const seq = wholeParam("seq", c.req.param("seq"), 0);
    return c.json(await readFullEvent(context, c.req.param("runId"), seq));
  });

  app.get("/api/runs/:runId/blobs/:n", async (c) => {
    const n = wholeParam("blob number", c.req.param("n"), -1);
    return c.json(await readBlob(context, c.req.param("runId"), n));
  });

  app.get("/api/runs/:runId/tree", async (c) =>
    c.json(await readRunTree(context, c.req.param("runId"))),
  );

  app.get("/api/runs/:runId/waterfall", async (c) =>
    c.json(await readRunWaterfall(context, c.req.param("runId"))),
  );

  app.get("/api/runs/:runId/live", async (c) => {
    const runId = requireRunId(c.req.param("runId"));
    const afterSeq = wholeParam("afterSeq", c.req.query("afterSeq"), 0);
    if ((await context.errand.store.readHead(runId)) === undefined) throw runNotFound(runId);
    return live.open(c, (stream) => streamRun(context, parts.follower, runId, afterSeq, stream));
  });

  app.get("/api/runs/:runId/stream", async (c) => {
    const runId = requireRunId(c.req.param("runId"));
    const from = c.req.query("from") ?? c.req.header("last-event-id");
    if (from !== undefined && !isLiveOffset(from)) {
      throw new ErrandError(
        "invalid_spec",
        `from must be a live offset (<ms>-<n>), not ${JSON.stringify(from)}`,
      );
    }
    if ((await context.errand.store.readHead(runId)) === undefined) throw runNotFound(runId);
    return live.open(c, (stream) => streamDeltas(context, parts.follower, runId, from, stream));
  });

  app.post("/api/runs/cancel", security.guardAction, async (c) => {
    const body = await actionBody(
      c,
      BulkCancelBody,
      "{ runIds, cascade?, reason? } or { filter: { q?, status?, agent?, parent? }, cascade?, reason? }",
    );
    if (body instanceof Response) return body;
    const cancel = () => cancelRuns(context, parts.searchMetadata, body);
    // A filter with a search reads like one, in one of the searches' places.
    return body.filter?.q === undefined ? c.json(await cancel()) : inSearchPlace(c, cancel);
  });

  app.post("/api/runs/rerun", security.guardAction, async (c) => {
    const body = await actionBody(
      c,
      BulkRerunBody,
      "{ runIds, version?, requestKey? } or { filter: { q?, status?, agent?, parent? }, cursor?, limit?, version?, requestKey? }",
    );
    if (body instanceof Response) return body;
    const rerun = () => rerunRuns(context, parts.searchMetadata, body);
    return body.filter?.q === undefined ? c.json(await rerun()) : inSearchPlace(c, rerun);
  });

  app.post("/api/runs/:runId/cancel", security.guardAction, async (c) => {
    const body = await actionBody(c, CancelBody, "{ cascade?, reason? }");
    if (body instanceof Response) return body;
    return c.json(await cancelRun(context, c.req.param("runId"), body));
  });

  app.post("/api/runs/:runId/answer", security.guardAction, async (c) => {
    const body = await actionBody(c, AnswerBody, "{ token, answer, answeredBy? }");
    if (body instanceof Response) return body;
    return c.json(await answerWaitpoint(context, c.req.param("runId"), body));
  });

  app.post("/api/runs/:runId/replay", security.guardAction, async (c) =>
    c.json(await replayRun(context, c.req.param("runId")), 201),
  );

  addScheduleRoutes(app, context, security.guardAction);

  app.all("/api/*", (c) =>
    apiError(c, 404, "not_found", `no such API route: ${c.req.method} ${c.req.path}`),
  );

  app.get("*", (c) => {
    const file = parts.page.get(c.req.path);
    if (file === undefined) {
      if (parts.page.size === 0 && c.req.path === "/") return c.text(PAGE_NOT_BUILT, 503);
      return c.text("404 Not Found\n", 404);
    }
    c.header("Content-Type", file.contentType);
    c.header("Cache-Control", file.immutable ? "public, max-age=31536000, immutable" : "no-cache");
    return c.body(file.body);
  });

  return app;
}
