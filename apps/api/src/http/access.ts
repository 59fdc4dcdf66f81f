/**
 * Who may call `/v1`, and as whom (docs/architecture/http-api.md#keys-and-tenants):
 * the access check turns a request into the errand client it may use, or
 * into the refusal it gets.
 */
import type { Context, MiddlewareHandler } from "hono";
import type { ApiContext } from "../context.js";
import type { ApiEnv, RequestErrand } from "./env.js";

/** Turns a request into the client it may use, or its refusal. */
export interface AccessCheck {
  admit(c: Context<ApiEnv>): Promise<RequestErrand | Response>;
}

/** Every request as the operator's own: the process's client whole. */
export function operatorAccess(context: ApiContext): AccessCheck {
  return { admit: async () => context.errand };
}

/** The middleware that runs `access` and leaves its client on the request. */
export function checkAccess(_context: ApiContext, access: AccessCheck): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    const admitted = await access.admit(c);
    if (admitted instanceof Response) return admitted;
    c.set("errand", admitted);
    await next();
  };
}
