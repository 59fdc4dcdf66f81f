/**
 * The run a path names (`/v1/runs/{runId}/…`). A path names a resource, so
 * a string that is not a run id names no run: 404 `not_found`, as a run
 * never fired or expired is, and as `collect` answers such an id — not a 400,
 * which would tell a caller to change a request the document allows
 * (docs/architecture/http-api.md#errors).
 */
import { ErrandError } from "@errand/core";
import { isRunId } from "@errand/core/ops";

/** `runId` when it is a run id; else throws `not_found`. */
export function pathRunId(runId: string): string {
  if (isRunId(runId)) return runId;
  throw new ErrandError(
    "not_found",
    `no run ${JSON.stringify(runId)}: that is not a run id (fire answers with one)`,
  );
}
