/**
 * The page's calls to the dashboard's API: reads, the actions (with
 * the CSRF header of the session) and the live streams.
 */
import type { Evaluation, EvaluationSummary, ScheduleView } from "@errand/engine";
import type {
  ApiErrorBody,
  BlobView,
  BulkCancelResult,
  BulkRerunResult,
  LiveEntry,
  Overview,
  OverviewMessage,
  RemovedSchedule,
  RunDetail,
  RunTree,
  RunView,
  RunWithUsage,
  ScheduleDetail,
  SearchHit,
  SessionInfo,
  TimelineEvent,
  WaitingOn,
  Waterfall,
  WaterfallBar,
} from "../index.js";

export type {
  Evaluation,
  EvaluationCase,
  EvaluationSummary,
  RerunItem,
  ScheduleView,
} from "@errand/engine";

/** The API's shapes, as the server declares them. */
export type {
  BlobView,
  BulkCancelResult,
  BulkRerunResult,
  LiveEntry,
  Overview,
  OverviewMessage,
  RunDetail,
  RunTree,
  RunView,
  ScheduleDetail,
  SessionInfo,
  TimelineEvent,
  WaitingOn,
  Waterfall,
  WaterfallBar,
};

/** A run in a list (a search adds what matched). */
export type RunRow = RunWithUsage & { match?: SearchHit["match"] };

/** A page of items. */
export interface ListPage<T> {
  items: T[];
  count: number;
  hasMore: boolean;
  nextCursor?: string;
  scanned?: number;
}

/** An error the API answered with. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

async function answer<T>(response: Response): Promise<T> {
  const body = (await response.json()) as T | ApiErrorBody;
  if (!response.ok) {
    const error = (body as ApiErrorBody).error;
    throw new ApiError(
      response.status,
      error?.code ?? "error",
      error?.message ?? response.statusText,
    );
  }
  return body as T;
}

/** `GET path` as JSON. */
export async function getJson<T>(path: string): Promise<T> {
  return answer<T>(await fetch(path, { headers: { accept: "application/json" } }));
}

let session: SessionInfo | undefined;

/** The dashboard's session (read once). */
export async function loadSession(): Promise<SessionInfo> {
  session ??= await getJson<SessionInfo>("/api/session");
  return session;
}

async function postAction<T>(path: string, body: unknown): Promise<T> {
  const { csrfToken } = await loadSession();
  const response = await fetch(path, {
    method: "POST",
    headers: { "content-type": "application/json", "x-errand-csrf": csrfToken },
    body: JSON.stringify(body),
  });
  return answer<T>(response);
}

/** The runs query of the runs view. */
export interface RunsQuery {
  q?: string;
  status?: string;
  agent?: string;
  parent?: string;
  cursor?: string;
  limit?: number;
}

/** A page of runs (or search hits). */
export function listRuns(query: RunsQuery): Promise<ListPage<RunRow>> {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== "") params.set(key, String(value));
  }
  return getJson(`/api/runs?${params}`);
}

const runPath = (runId: string) => `/api/runs/${encodeURIComponent(runId)}`;

/** The run's detail. */
export const readRun = (runId: string) => getJson<RunDetail>(runPath(runId));
/** The tree of the run's root. */
export const readTree = (runId: string) => getJson<RunTree>(`${runPath(runId)}/tree`);
/** Where the run's time went, and what it waits on. */
export const readWaterfall = (runId: string) => getJson<Waterfall>(`${runPath(runId)}/waterfall`);
/** One event of the run, whole. */
export const readFullEvent = (runId: string, seq: number) =>
  getJson<TimelineEvent>(`${runPath(runId)}/events/${seq}`);
/** A stored large value of the run. */
export const readBlob = (runId: string, n: number) =>
  getJson<BlobView>(`${runPath(runId)}/blobs/${n}`);

/** Every event of the run, page after page (at most `max`). */
export async function readTimeline(runId: string, max = 5_000): Promise<TimelineEvent[]> {
  const events: TimelineEvent[] = [];
  let cursor = "";
  for (;;) {
    const page = await getJson<ListPage<TimelineEvent>>(
      `${runPath(runId)}/events?limit=1000${cursor}`,
    );
    events.push(...page.items);
    if (!page.hasMore || page.nextCursor === undefined || events.length >= max) return events;
    cursor = `&cursor=${encodeURIComponent(page.nextCursor)}`;
  }
}

/** A page of evaluations, newest first. */
export const listEvaluations = () =>
  getJson<ListPage<EvaluationSummary>>("/api/evaluations?limit=50");
/** One evaluation, its cases changed first. */
export const readEvaluation = (evaluationId: string) =>
  getJson<Evaluation>(`/api/evaluations/${encodeURIComponent(evaluationId)}`);

const schedulePath = (id: string) => `/api/schedules/${encodeURIComponent(id)}`;
/** Every schedule, by id, with its next and last fire. */
export const listSchedules = () => getJson<{ items: ScheduleView[] }>("/api/schedules");
/** One schedule and the runs it made, newest first. */
export const readSchedule = (id: string) => getJson<ScheduleDetail>(schedulePath(id));
/** Pauses the schedule (`paused`) or resumes it; answers it as it is now. */
export const setSchedulePaused = (id: string, paused: boolean) =>
  postAction<ScheduleView>(`${schedulePath(id)}/${paused ? "pause" : "resume"}`, {});
/**
 * Creates schedule `spec.id`, or replaces the one of that id, as
 * `schedules.upsert` does; refused (`invalid_spec`, `unknown_agent`,
 * `invalid_input`) with nothing written. Answers it as `list` shows it.
 */
export const upsertSchedule = (spec: Record<string, unknown>) =>
  postAction<ScheduleView>("/api/schedules", spec);
/** Deletes the schedule; the runs it made stay. */
export const removeSchedule = (id: string) =>
  postAction<RemovedSchedule>(`${schedulePath(id)}/remove`, {});

/** What a cancel did to the run. */
export interface CancelAnswer {
  runId: string;
  status: string;
  requested: boolean;
  descendants?: CancelAnswer[];
}

/** Cancels the run (with `cascade`, its descendants too). */
export const cancelRun = (runId: string, cascade: boolean) =>
  postAction<CancelAnswer>(`${runPath(runId)}/cancel`, { cascade });
/** Answers waitpoint `token` of the run with `answer`, as `answeredBy` when given. */
export const answerWaitpoint = (
  runId: string,
  token: string,
  answer: unknown,
  answeredBy: string | undefined,
) =>
  postAction<{ runId: string; token: string; answeredAt: string }>(`${runPath(runId)}/answer`, {
    token,
    answer,
    ...(answeredBy === undefined ? {} : { answeredBy }),
  });
/** Cancels each of `runIds` (with `cascade`, their descendants too), answered run by run. */
export const cancelRuns = (runIds: readonly string[], cascade: boolean) =>
  postAction<BulkCancelResult>("/api/runs/cancel", { runIds, cascade });
/** The runs list's filters a bulk cancel by filter sends: those set. */
export type RunsFilter = Pick<RunsQuery, "q" | "status" | "agent" | "parent">;
/** Cancels the open runs `filter` matches (up to 100; `more` says when more match), answered run by run. */
export const cancelMatching = (filter: RunsFilter, cascade: boolean) =>
  postAction<BulkCancelResult>("/api/runs/cancel", { filter, cascade });
/**
 * Which version a re-run runs on: `"original"`, the one each run ran (refused
 * run by run when none of its workers is live), or `"newest"`.
 */
export type RerunVersion = "original" | "newest";
/**
 * Re-runs each of `runIds` (up to 100) on `version`, answered run by run;
 * `requestKey` names the request, so sending it again fires no run twice.
 */
export const rerunRuns = (runIds: readonly string[], version: RerunVersion, requestKey: string) =>
  postAction<BulkRerunResult>("/api/runs/rerun", { runIds, version, requestKey });
/** Re-runs a page (up to 100) of the runs `filter` matches, from `cursor`; `nextCursor` goes on. */
export const rerunMatching = (
  filter: RunsFilter,
  version: RerunVersion,
  requestKey: string,
  cursor: string | undefined,
) =>
  postAction<BulkRerunResult>("/api/runs/rerun", {
    filter,
    version,
    requestKey,
    ...(cursor === undefined ? {} : { cursor }),
  });
/** Fires the run again with the same input; answers the new runId. */
export const replayRun = (runId: string) =>
  postAction<{ runId: string }>(`${runPath(runId)}/replay`, {});

/** Opens an event stream; `on` gets each named event's parsed data. */
export function openStream(
  path: string,
  on: Record<string, (data: unknown) => void>,
  onState?: (open: boolean) => void,
): EventSource {
  const source = new EventSource(path);
  for (const [event, handle] of Object.entries(on)) {
    source.addEventListener(event, (message) => handle(JSON.parse((message as MessageEvent).data)));
  }
  source.addEventListener("open", () => onState?.(true));
  source.addEventListener("error", () => onState?.(source.readyState === EventSource.OPEN));
  return source;
}

/** The run's live stream from after `afterSeq`. */
export function followRun(
  runId: string,
  afterSeq: number,
  handlers: {
    run(view: RunView): void;
    event(event: TimelineEvent): void;
    end(): void;
  },
): EventSource {
  const source = openStream(`${runPath(runId)}/live?afterSeq=${afterSeq}`, {
    run: (data) => handlers.run(data as RunView),
    event: (data) => handlers.event(data as TimelineEvent),
    end: () => {
      source.close();
      handlers.end();
    },
  });
  return source;
}

/** The run's live deltas, the current model request's answer so far first, until the run settles. */
export function followDeltas(runId: string, onDelta: (delta: LiveEntry) => void): EventSource {
  const source = openStream(`${runPath(runId)}/stream`, {
    delta: (data) => onDelta(data as LiveEntry),
    end: () => source.close(),
  });
  return source;
}
