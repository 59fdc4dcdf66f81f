/**
 * Who may call `/v1`, and as whom (docs/architecture/http-api.md#keys-and-tenants).
 *
 * A request with `Authorization: Bearer <key>` is answered as that key: the
 * key is verified (401 `unauthorized` for one unknown, revoked or wrong),
 * its request counted against its requests a minute (429 `rate_limited`
 * with `Retry-After`), and the routes get the process's client seen
 * through the key's grant (`grantedErrand`: its scopes, agents and tenant,
 * another tenant's runs answered as unknown ones). A request without a key
 * is the operator's own (`LOOPBACK_GRANT`) on a loopback listener, unless
 * the server was told to ask for keys there too; beyond loopback it is 401.
 */
import {
  type AccessGrant,
  type AccessKeys,
  createAccessKeys,
  grantedErrand,
  LOOPBACK_GRANT,
} from "@errand/engine";
import type { Context, MiddlewareHandler } from "hono";
import type { ApiContext } from "../context.js";
import type { ApiEnv } from "./env.js";
import { apiError } from "./errors.js";

/** The keys of one API process, and whether a request without one is the operator's. */
export interface Access {
  readonly keys: AccessKeys;
  /** True on a loopback listener not told to ask for keys. */
  readonly keylessIsOperator: boolean;
}

/** Opens the keys of `context`'s deployment. */
export function openAccess(context: ApiContext, keylessIsOperator: boolean): Access {
  const { connection, logger, prefix } = context.options;
  const keys = createAccessKeys({
    connection,
    logger,
    ...(prefix === undefined ? {} : { prefix }),
  });
  return { keys, keylessIsOperator };
}

/** The 401 answer, with the scheme a client should use. */
function unauthorized(c: Context, message: string): Response {
  c.header("WWW-Authenticate", 'Bearer realm="errand"');
  return apiError(c, 401, "unauthorized", message);
}

/** The grant of the request's key, or the 401 answer. */
async function grantOf(c: Context, access: Access): Promise<AccessGrant | Response> {
  const header = c.req.header("authorization");
  if (header === undefined) {
    if (access.keylessIsOperator) return LOOPBACK_GRANT;
    return unauthorized(c, "this API needs a key: send Authorization: Bearer <key>");
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (match === null) {
    return unauthorized(
      c,
      "the Authorization header is not `Bearer <key>`: write the word Bearer, a space, then the key",
    );
  }
  const grant = await access.keys.verify(match[1]!);
  if (grant === undefined) {
    return unauthorized(c, "the key is not valid: unknown, revoked or mistyped");
  }
  return grant;
}

/** The middleware that admits a request and leaves the client its key may use on it. */
export function checkAccess(context: ApiContext, access: Access): MiddlewareHandler<ApiEnv> {
  const { errand, options } = context;
  return async (c, next) => {
    const grant = await grantOf(c, access);
    if (grant instanceof Response) return grant;
    const admission = await access.keys.admit(grant);
    if (!admission.admitted) {
      const seconds = Math.max(1, Math.ceil(admission.retryAfterMs / 1_000));
      c.header("Retry-After", String(seconds));
      return apiError(
        c,
        429,
        "rate_limited",
        `this key's requests a minute are spent; send again in ${seconds} s`,
        { retryable: true },
      );
    }
    c.set("grant", grant);
    c.set("errand", grantedErrand(errand, grant, { logger: options.logger }));
    await next();
  };
}
