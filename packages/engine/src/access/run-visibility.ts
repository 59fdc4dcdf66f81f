/**
 * Which runs a grant sees: every run for a grant without a tenant, its
 * tenant's runs (the run head's `tenant`) for one with. A run the grant may
 * not see is answered as a run that does not exist — `not_found`, the same
 * error and message as an unknown id — so that nothing tells another
 * tenant's runs apart from runs never fired.
 */
import { isRunId, runNotFound } from "@errand/core/ops";
import type { EventStore } from "@errand/store";
import type { AccessGrant } from "./access-grant.js";

/** Whether `grant` sees the runs of `tenant` (a run's, `undefined` for a run without one). */
function seesTenant(grant: AccessGrant, tenant: string | undefined): boolean {
  return grant.tenant === undefined || grant.tenant === tenant;
}

/**
 * Throws `not_found` (as for an unknown run) when `runId` names a run that
 * `grant` may not see. A malformed or unknown id passes: the call it guards
 * refuses it in its own words.
 */
export async function requireVisible(
  store: EventStore,
  grant: AccessGrant,
  runId: string,
  role: "run" | "parent run" = "run",
): Promise<void> {
  if (grant.tenant === undefined || typeof runId !== "string" || !isRunId(runId)) return;
  const head = await store.readHead(runId);
  if (head !== undefined && !seesTenant(grant, head.tenant)) throw runNotFound(runId, role);
}

/** The runs of `runIds` that `grant` may not see (unknown ones are not among them). */
export async function hiddenRuns(
  store: EventStore,
  grant: AccessGrant,
  runIds: readonly string[],
): Promise<Set<string>> {
  if (grant.tenant === undefined) return new Set();
  const distinct = [
    ...new Set(runIds.filter((runId) => typeof runId === "string" && isRunId(runId))),
  ];
  const heads = await Promise.all(distinct.map((runId) => store.readHead(runId)));
  return new Set(
    distinct.filter((_, index) => {
      const head = heads[index];
      return head !== undefined && !seesTenant(grant, head.tenant);
    }),
  );
}
