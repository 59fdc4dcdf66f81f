/**
 * The Hono environment of the API's routes: what the access check leaves on
 * each request for the routes (docs/architecture/http-api.md#keys-and-tenants).
 */
import type { AccessGrant, GrantedErrand } from "@errand/engine";

/** The variables every route of `/v1` reads. */
export interface ApiEnv {
  Variables: {
    /** What the request's key (or loopback) grants. */
    grant: AccessGrant;
    /** The process's client, seen through the request's grant. */
    errand: GrantedErrand;
  };
}
