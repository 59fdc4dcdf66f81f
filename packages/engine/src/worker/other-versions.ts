/**
 * Runs of another version of an agent (docs/architecture/firing.md#versions): a
 * worker only starts or resumes runs of the versions it runs. The job of a
 * run fired for another version is handed back, without writing to the log:
 * delayed by {@link OTHER_VERSION_RECHECK_MS} in the same queue, where a
 * worker of that version takes it. With none left, the reaper settles the run
 * `agent_version_unavailable` once `versionGraceMs` is over.
 */
import type { Logger } from "@errand/runtime";
import { DelayedError, type Job, type Scripts } from "bullmq";
import { delayHeldJob } from "./delay-job.js";

/** How long a job handed back for another version waits before a worker takes it again: 1 s. */
export const OTHER_VERSION_RECHECK_MS = 1_000;

/**
 * Delays `job` (held with `token`, moved by `scripts`) and rejects with
 * BullMQ's `DelayedError`: the job was moved, not finished, and no attempt is spent.
 */
export async function handBackJob(
  job: Job,
  token: string | undefined,
  scripts: Scripts,
  logger: Logger,
  versions: { run: string; worker: string },
): Promise<never> {
  await delayHeldJob({
    job,
    token,
    until: Date.now() + OTHER_VERSION_RECHECK_MS,
    scripts,
    logger,
    write: "hand-back of a run of another version",
  });
  logger.info(
    { runId: job.id, agentVersion: versions.run, workerVersion: versions.worker },
    "run of another agent version handed back",
  );
  throw new DelayedError();
}
