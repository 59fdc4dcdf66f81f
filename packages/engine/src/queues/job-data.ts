/**
 * The BullMQ job of a run: named after the agent, id = runId, data = `{ runId }`.
 * Everything else about the run is in its log; the job only says which run to
 * work on, and workers validate it before touching anything.
 */
import { ErrandError } from "@errand/core";
import { isRunId } from "@errand/core/ops";
import { z } from "zod";

/** The data of a run's job. */
export const RunJobData = z.strictObject({
  runId: z.string().refine(isRunId, "runId is not a run id"),
});
export type RunJobData = z.infer<typeof RunJobData>;

/**
 * The job data of job `jobId`, checked. Throws an {@link ErrandError}
 * `invalid_spec` naming the problem: the job fails with it and nothing is written.
 */
export function parseRunJobData(jobId: string | undefined, data: unknown): RunJobData {
  const parsed = RunJobData.safeParse(data);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map(
    (issue) => `${issue.path.join(".") || "data"}: ${issue.message}`,
  );
  throw new ErrandError(
    "invalid_spec",
    `job ${jobId ?? "?"} carries malformed data (${issues.join("; ")}); a run's job data is { runId }`,
    { details: { jobId, issues } },
  );
}
