/**
 * The refusals of a grant: a scope it lacks, an agent outside its list, a
 * tenant or concurrency key other than its own. Each is an `ErrandError`
 * `forbidden` (not retryable) naming the key by its id and saying what key
 * would do.
 */
import { ErrandError } from "@errand/core";
import type { AccessGrant, AccessScope } from "./access-grant.js";

/** Throws `forbidden` unless `grant` has `scope`. */
export function requireScope(grant: AccessGrant, scope: AccessScope): void {
  if (grant.scopes.includes(scope)) return;
  throw new ErrandError(
    "forbidden",
    `access key ${grant.keyId} may not ${scope} (its scopes: ${grant.scopes.join(", ")}); use a key created with --scopes including ${scope}`,
    { details: { keyId: grant.keyId, scope } },
  );
}

/** The `forbidden` of an agent outside `grant.agents`, or `undefined` when it may fire `agent`. */
export function agentRefusal(grant: AccessGrant, agent: unknown): ErrandError | undefined {
  if (grant.agents === undefined || (typeof agent === "string" && grant.agents.includes(agent))) {
    return undefined;
  }
  return new ErrandError(
    "forbidden",
    `access key ${grant.keyId} may not fire agent ${JSON.stringify(agent)} (it may fire: ${grant.agents.join(", ")}); use a key created with --agents including it`,
    { details: { keyId: grant.keyId, agent } },
  );
}

/** The `forbidden` of a spec naming another tenant than the grant's (`field`: `tenant` or `concurrencyKey`). */
export function tenantRefusal(
  grant: AccessGrant,
  field: "tenant" | "concurrencyKey",
  value: unknown,
): ErrandError {
  return new ErrandError(
    "forbidden",
    `access key ${grant.keyId} fires only under tenant ${JSON.stringify(grant.tenant)}, which is also each run's concurrencyKey: leave ${field} out of the spec (it was ${JSON.stringify(value)})`,
    { details: { keyId: grant.keyId, field } },
  );
}
