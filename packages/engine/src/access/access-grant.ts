/**
 * What a caller may do: the scopes, agents and tenant an access key grants
 * (docs/operations/keys.md). A grant is plain data, made by `verify` from a
 * key's record or, for a caller on loopback without a key, {@link LOOPBACK_GRANT};
 * `grantedErrand` enforces it and `admit` rates it.
 */
import { z } from "zod";

/**
 * What a key lets its holder do: `fire` runs (one or many), `read` them
 * (result, collect, list, events, stream, waitpoints), `cancel` them,
 * `answer` their waitpoints.
 */
export type AccessScope = "fire" | "read" | "cancel" | "answer";

/** Every scope, in the order the docs and the CLI list them. */
export const ACCESS_SCOPES: readonly AccessScope[] = ["fire", "read", "cancel", "answer"];

/** A scope, checked: one of {@link ACCESS_SCOPES}. */
export const AccessScopeName = z.enum(["fire", "read", "cancel", "answer"]);

/** What a tenant's name is made of, as errors say it. */
export const TENANT_RULE = "a tenant is 1 to 128 of letters, digits, '.', '_', '-', ':'";

/**
 * A tenant's name as a key, a fire spec and a run carry it: 1 to 128 of
 * letters, digits, `.`, `_`, `-` and `:`.
 */
export const TenantName = z.string().regex(/^[A-Za-z0-9._:-]{1,128}$/, TENANT_RULE);

/** What a verified key (or loopback) grants. */
export interface AccessGrant {
  /** The key's public id (never the key): what logs and `errand keys list` name it by. */
  readonly keyId: string;
  /** The calls it may make. */
  readonly scopes: readonly AccessScope[];
  /** The only agents it may fire; absent: every agent. */
  readonly agents?: readonly string[];
  /**
   * The tenant it acts for: it fires only under this tenant and sees only
   * this tenant's runs. Absent: every run, of every tenant and of none.
   */
  readonly tenant?: string;
  /** Its own budget of requests a minute for `admit`, when it was created with one. */
  readonly requestsPerMinute?: number;
}

/** The keyId of {@link LOOPBACK_GRANT}. */
export const LOOPBACK_KEY_ID = "loopback";

/** What a caller on loopback without a key may do: every scope, no tenant. */
export const LOOPBACK_GRANT: AccessGrant = Object.freeze({
  keyId: LOOPBACK_KEY_ID,
  scopes: Object.freeze([...ACCESS_SCOPES]),
});
