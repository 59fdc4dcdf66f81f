/**
 * Who an HTTP request acts for (docs/architecture/mcp.md#http): the grant of
 * the errand access key its `Authorization: Bearer` carries, verified and
 * admitted at the key's rate on every request; without a key, the loopback
 * grant — only while the server listens on loopback. A key that does not
 * verify (unknown, revoked, malformed) is 401, told nothing more; a key
 * past its rate is 429 with when to come back.
 */
import { type AccessGrant, type AccessKeys, LOOPBACK_GRANT } from "@errand/engine";
import type { ErrandMcpServices } from "../server/errand-services.js";
import type { McpAccess, McpRefusal } from "./serve-http.js";

/** Options of {@link accessByKeys}. */
export interface KeyAccessOptions {
  /** Verifies keys and admits their requests. */
  accessKeys: Pick<AccessKeys, "verify" | "admit">;
  /** Whether a request without a key acts with {@link LOOPBACK_GRANT}: only for a server on loopback. */
  loopback: boolean;
  /** The services a grant acts through. */
  servicesFor(grant: AccessGrant): ErrandMcpServices;
}

const NEEDS_KEY: McpRefusal = {
  status: 401,
  message: "Unauthorized: send Authorization: Bearer <errand key> (errand keys create makes one)",
};

/** The `access` of `serveMcpOverHttp` by errand's access keys. */
export function accessByKeys(
  options: KeyAccessOptions,
): (authorization: string | undefined) => Promise<McpAccess | McpRefusal> {
  return async (authorization) => {
    let grant: AccessGrant | undefined;
    if (authorization === undefined) {
      grant = options.loopback ? LOOPBACK_GRANT : undefined;
    } else {
      const key = /^Bearer +(\S+)$/i.exec(authorization)?.[1];
      grant = key === undefined ? undefined : await options.accessKeys.verify(key);
    }
    if (grant === undefined) return NEEDS_KEY;
    const admission = await options.accessKeys.admit(grant);
    if (!admission.admitted) {
      return {
        status: 429,
        message: "Too many requests for this key: come back after Retry-After seconds",
        retryAfterSeconds: Math.max(1, Math.ceil(admission.retryAfterMs / 1000)),
      };
    }
    return { services: options.servicesFor(grant), principal: grant.keyId };
  };
}
