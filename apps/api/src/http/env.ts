/**
 * The Hono environment of the API's routes: what the access layer leaves on
 * each request for the routes (docs/architecture/http-api.md#keys-and-tenants).
 */
import type { Errand } from "@errand/engine";

/** The calls of `Errand` a request may make: the process's client, seen through the request's grant. */
export type RequestErrand = Pick<
  Errand,
  "fire" | "fireMany" | "result" | "collect" | "list" | "cancel" | "waitpoints"
>;

/** The variables every route reads. */
export interface ApiEnv {
  Variables: {
    /** The client as the request's key may use it. */
    errand: RequestErrand;
  };
}
