/**
 * An access key's record as its Redis HASH holds it
 * (docs/architecture/redis-layout.md#access-keys): the fields written at
 * `create`, read back by `verify` and `list`. The key itself is never a
 * field; `hash` is its SHA-256.
 */
import { ErrandError } from "@errand/core";
import type { AccessGrant, AccessScope } from "./access-grant.js";
import { AccessScopeName } from "./access-grant.js";

/** What `errand keys list` shows of a key: everything but its hash. */
export interface AccessKeySummary {
  keyId: string;
  /** The name it was created with, when it was given one. */
  name?: string;
  scopes: AccessScope[];
  /** The only agents it may fire, when it was limited to some. */
  agents?: string[];
  tenant?: string;
  /** Its own budget of requests a minute, when it was created with one. */
  requestsPerMinute?: number;
  /** When it was created (ISO 8601). */
  createdAt: string;
  /**
   * When a process last verified it (ISO 8601), to within each process's
   * verify cache (under a second); absent for a key never used.
   */
  lastUsedAt?: string;
}

/** The HASH fields of a new record. */
export function recordFields(summary: AccessKeySummary, hash: string): Record<string, string> {
  return {
    hash,
    keyId: summary.keyId,
    scopes: summary.scopes.join(","),
    createdAt: summary.createdAt,
    ...(summary.name === undefined ? {} : { name: summary.name }),
    ...(summary.agents === undefined ? {} : { agents: JSON.stringify(summary.agents) }),
    ...(summary.tenant === undefined ? {} : { tenant: summary.tenant }),
    ...(summary.requestsPerMinute === undefined
      ? {}
      : { requestsPerMinute: String(summary.requestsPerMinute) }),
  };
}

function malformed(keyId: string, field: string): ErrandError {
  return new ErrandError(
    "internal",
    `access key ${keyId}: its record's field ${field} is not one errand writes; revoke the key and create another`,
    { details: { keyId, field } },
  );
}

/** The summary of a record's fields (HGETALL's), `undefined` for none. */
export function decodeRecord(
  keyId: string,
  fields: Record<string, string>,
): AccessKeySummary | undefined {
  if (fields.hash === undefined) return undefined;
  const scopes = (fields.scopes ?? "").split(",").map((scope) => {
    const parsed = AccessScopeName.safeParse(scope);
    if (!parsed.success) throw malformed(keyId, "scopes");
    return parsed.data;
  });
  let agents: string[] | undefined;
  if (fields.agents !== undefined) {
    const parsed: unknown = JSON.parse(fields.agents);
    if (!Array.isArray(parsed) || !parsed.every((agent) => typeof agent === "string")) {
      throw malformed(keyId, "agents");
    }
    agents = parsed;
  }
  const rate =
    fields.requestsPerMinute === undefined ? undefined : Number(fields.requestsPerMinute);
  if (rate !== undefined && !(Number.isSafeInteger(rate) && rate > 0)) {
    throw malformed(keyId, "requestsPerMinute");
  }
  if (fields.createdAt === undefined) throw malformed(keyId, "createdAt");
  return {
    keyId,
    ...(fields.name === undefined ? {} : { name: fields.name }),
    scopes,
    ...(agents === undefined ? {} : { agents }),
    ...(fields.tenant === undefined ? {} : { tenant: fields.tenant }),
    ...(rate === undefined ? {} : { requestsPerMinute: rate }),
    createdAt: fields.createdAt,
    ...(fields.lastUsedAt === undefined ? {} : { lastUsedAt: fields.lastUsedAt }),
  };
}

/** The grant of a key's summary. */
export function grantOf(summary: AccessKeySummary): AccessGrant {
  return Object.freeze({
    keyId: summary.keyId,
    scopes: Object.freeze([...summary.scopes]),
    ...(summary.agents === undefined ? {} : { agents: Object.freeze([...summary.agents]) }),
    ...(summary.tenant === undefined ? {} : { tenant: summary.tenant }),
    ...(summary.requestsPerMinute === undefined
      ? {}
      : { requestsPerMinute: summary.requestsPerMinute }),
  });
}
