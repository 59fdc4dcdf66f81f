/**
 * `@errand/dashboard` — a live web page of errand's queues, workers, runs,
 * run trees and event timelines, and the JSON API it reads.
 *
 * ```ts
 * import { createDashboard } from "@errand/dashboard";
 *
 * const dashboard = await createDashboard({ connection: process.env.REDIS_URL! });
 * console.log(`open ${dashboard.url}`); // http://127.0.0.1:4040
 * ```
 *
 * ## What it serves
 *
 * - `GET /` — the page (built with the package: no CDN, works offline).
 * - `GET /api/overview` — per queue waiting / active / delayed jobs and the
 *   runs settled in the last 15 minutes, workers with their heartbeats and
 *   agents, run counts, runs settled per minute and the failure rate.
 * - `GET /api/runs?status&agent&parent&q&limit&cursor` — runs newest first,
 *   `{ items, count, hasMore, nextCursor? }`; `q` searches by runId (whole or
 *   its start) and metadata value.
 * - `GET /api/runs/:runId` — the run (`RunResult` once settled), what it was
 *   fired with; `…/events` its timeline a page at a time, `…/events/:seq`
 *   one event whole, `…/blobs/:n` a stored large value, `…/tree` the tree of
 *   its root with every run's status, `…/waterfall` where its time went
 *   (the queue, each model request, tool call and park on one time axis)
 *   and what it waits on while it runs.
 * - `GET /api/live` and `GET /api/runs/:runId/live` — server-sent events:
 *   the overview as it changes, and a run's events as they are appended
 *   (every run stream through one shared follower: two Redis connections
 *   however many watch; at most `maxLiveClients` streams at once).
 * - `POST /api/runs/:runId/cancel` (`{ cascade?, reason? }`),
 *   `POST /api/runs/cancel` (`{ runIds, cascade?, reason? }`: up to 100 runs,
 *   answered run by run), `POST /api/runs/rerun` (`{ runIds }` or
 *   `{ filter, cursor? }`: up to 100 runs a call, answered run by run) and
 *   `POST /api/runs/:runId/replay` — the actions, refused in read-only mode.
 * - `GET /api/schedules` and `GET /api/schedules/:id` — the schedules with
 *   their next and last fire, one with the runs it made;
 *   `POST /api/schedules` (a spec, checked by the engine's
 *   `schedules.upsert`: creates or replaces), `POST /api/schedules/:id/pause`,
 *   `…/resume` and `…/remove`, guarded like cancel.
 *
 * ## Safety
 *
 * It listens on 127.0.0.1 by default and answers only requests for a
 * loopback host name. Listening beyond loopback requires a token
 * (`ERRAND_DASHBOARD_TOKEN`), then asked of every request. Actions must
 * come from the page itself (Origin and a CSRF header); behind a reverse
 * proxy, `publicUrl` names the origin the page is opened at. Secrets in values
 * (keys such as `apiKey`, `secretKey`, `aws_secret_access_key`, `authorization`,
 * `password`, `passwd`, `cookie`, `token`: `@errand/core`'s `isSecretKey`, the
 * one list the logs and the CLI use too) are redacted before they leave the server.
 *
 * @packageDocumentation
 */

/** An entry of a run's live channel, as `GET /api/runs/:runId/stream` sends it. */
export type { LiveEntry } from "@errand/core";
/** The redaction every value the dashboard sends goes through (from `@errand/core`). */
export {
  BulkCancelBody,
  type BulkCancelItem,
  type BulkCancelResult,
  MAX_BULK_CANCEL,
} from "./actions/bulk-cancel.js";
export {
  BulkRerunBody,
  type BulkRerunResult,
  RerunFilter,
} from "./actions/bulk-rerun.js";
export { CANCELLED_BY, CancelBody } from "./actions/run-actions.js";
export { createDashboard, type Dashboard } from "./create-dashboard.js";
export type { ApiErrorBody, DashboardRefusal } from "./http/api-error.js";
export type { SessionInfo } from "./http/app.js";
export { foreignHostRefusal } from "./http/host-check.js";
export type { RemovedSchedule } from "./http/schedule-routes.js";
export { CSRF_HEADER, SESSION_COOKIE, TOKEN_QUERY } from "./http/security.js";
export { SESSION_LIFETIME_SECONDS } from "./http/sessions.js";
export type { OverviewMessage } from "./live/overview-hub.js";
export {
  type DashboardLogger,
  type DashboardOptions,
  DEFAULT_DASHBOARD_HOST,
  DEFAULT_DASHBOARD_PORT,
  DEFAULT_MAX_CONCURRENT_SEARCHES,
  DEFAULT_MAX_LIVE_CLIENTS,
  isLoopbackHost,
  PUBLIC_URL_ENV,
  TOKEN_ENV,
  TOKEN_RULE,
} from "./options.js";
export type { TimelineEvent } from "./present/timeline.js";
export type {
  WaitingOn,
  Waterfall,
  WaterfallBar,
  WaterfallKind,
  WaterfallOutcome,
} from "./present/waterfall.js";
export type { BlobView } from "./reads/blob.js";
export type {
  Overview,
  QueueOverview,
  RunCounts,
  WorkerOverview,
} from "./reads/overview.js";
export type { RunTree, TreeNode } from "./reads/run-tree.js";
export type { RunWithUsage } from "./reads/run-usage.js";
export type { RunDefinition, RunDetail, RunView } from "./reads/run-view.js";
export type { ScheduleDetail, ScheduleRunView } from "./reads/schedules.js";
export type { SearchHit, SearchMatch, SearchPage } from "./reads/search-runs.js";
export type { MinuteCounts, Throughput } from "./reads/throughput.js";
