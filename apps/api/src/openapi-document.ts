/**
 * The OpenAPI 3.1 document of `/v1`, generated from the routes' schemas
 * without a Redis: what `errand api --openapi` prints and
 * `docs/reference/openapi.json` holds.
 */
import type { ApiContext } from "./context.js";
import { createRoutes, DOCUMENT_CONFIG } from "./http/app.js";

/** The document, as `GET /v1/openapi.json` answers it. */
export function openApiDocument(): object {
  // The routes are only described here, never called: they need no context.
  return createRoutes({} as ApiContext).getOpenAPI31Document(DOCUMENT_CONFIG);
}
