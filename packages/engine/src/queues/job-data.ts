/**
 * The BullMQ job of a run: named after the agent, id = runId, data = `{
 * runId, queued? }`. The job says which run to work on and, when its
 * producer wrote one, carries the run's `run-queued` as its log holds it, so
 * that the worker taking the job the first time reads no log
 * (docs/architecture/worker.md#the-run-queued-a-job-carries). Everything else
 * about the run is in its log; workers validate the data before touching anything.
 */
import { ErrandError, type RunEvent, type RunEventOf } from "@errand/core";
import { checkStoredEvent, isPlainObject, isRunId } from "@errand/core/ops";
import { z } from "zod";

/**
 * The `run-queued` of a run as its job carries it: its `at` and data, as its
 * log holds them (its seq is 1). Checked as a stored event is, not validated
 * again (docs/architecture/events.md).
 */
export const CarriedRunQueued = z.strictObject({
  at: z.string(),
  data: z.record(z.string(), z.unknown()),
});
export type CarriedRunQueued = z.infer<typeof CarriedRunQueued>;

/** The data of a run's job. */
export const RunJobData = z.strictObject({
  runId: z.string().refine(isRunId, "runId is not a run id"),
  /** The run's `run-queued`, when its producer carried it (not above {@link MAX_CARRIED_QUEUED_BYTES}). */
  queued: CarriedRunQueued.optional(),
});
export type RunJobData = z.infer<typeof RunJobData>;

/**
 * The longest `run-queued` data (UTF-16 code units of its JSON, about its
 * bytes) a job carries: a job's data stays in Redis while it waits and while
 * its queue keeps it completed, beside the same event in the log, so a large
 * input is read from the log instead.
 */
export const MAX_CARRIED_QUEUED_BYTES = 1_024;

/** What a job carries of `queued` (the run's `run-queued` as logged): `undefined` past {@link MAX_CARRIED_QUEUED_BYTES}. */
export function carriedRunQueued(queued: RunEvent): CarriedRunQueued | undefined {
  return JSON.stringify(queued.data).length <= MAX_CARRIED_QUEUED_BYTES
    ? { at: queued.at, data: queued.data as Record<string, unknown> }
    : undefined;
}

/**
 * The `run-queued` of run `runId` that its job carried, as its log's first
 * event; `undefined` when the job carried none, or something its log could
 * not hold (the worker then reads the log).
 */
export function runQueuedOfJob(
  runId: string,
  queued: CarriedRunQueued | undefined,
): RunEventOf<"run-queued"> | undefined {
  if (queued === undefined) return undefined;
  const decoded = checkStoredEvent(runId, { seq: 1, type: "run-queued", ...queued });
  return decoded.ok ? (decoded.event as RunEventOf<"run-queued">) : undefined;
}

/**
 * The job data of job `jobId`, checked. Throws an {@link ErrandError}
 * `invalid_spec` naming the problem: the job fails with it and nothing is written.
 */
export function parseRunJobData(jobId: string | undefined, data: unknown): RunJobData {
  if (isRunJobData(data)) return data;
  const parsed = RunJobData.safeParse(data);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map(
    (issue) => `${issue.path.join(".") || "data"}: ${issue.message}`,
  );
  throw new ErrandError(
    "invalid_spec",
    `job ${jobId ?? "?"} carries malformed data (${issues.join("; ")}); a run's job data is { runId, queued? }`,
    { details: { jobId, issues } },
  );
}

/**
 * Whether `data` is {@link RunJobData} exactly as its schema takes it, told
 * without the parse: the schema's parse copies the carried `run-queued`'s
 * data key by key, on every job a worker takes, for a check that
 * {@link runQueuedOfJob} makes again as it decodes the event. Data this
 * refuses is parsed, for the schema's own verdict and messages.
 */
export function isRunJobData(data: unknown): data is RunJobData {
  if (!isPlainObject(data)) return false;
  for (const key in data) if (key !== "runId" && key !== "queued") return false;
  if (typeof data.runId !== "string" || !isRunId(data.runId)) return false;
  const queued = data.queued;
  if (queued === undefined) return true;
  if (!isPlainObject(queued)) return false;
  for (const key in queued) if (key !== "at" && key !== "data") return false;
  return typeof queued.at === "string" && isPlainObject(queued.data);
}
