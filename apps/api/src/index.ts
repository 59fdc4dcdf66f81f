/**
 * `@errand/api` — errand's HTTP API, `/v1`: fire, wait for, collect, list,
 * cancel and follow runs, answer waitpoints and list agents from any
 * language, in the library's own shapes. Its OpenAPI 3.1 document is
 * generated from the zod schemas that validate the requests, and served at
 * `/v1/openapi.json`.
 *
 * ```ts
 * import { createHttpApi } from "@errand/api";
 *
 * const api = await createHttpApi({ connection: process.env.REDIS_URL! });
 * console.log(`errand api: ${api.url}`); // http://127.0.0.1:4050
 * ```
 *
 * The `errand api` command runs it as a process of its own, with `/livez`,
 * `/readyz` and `/metrics` (docs/guide/http-api.md).
 *
 * @packageDocumentation
 */

export { createHttpApi, type HttpApi } from "./create-api.js";
export { openApiDocument } from "./openapi-document.js";
export {
  DEFAULT_API_HOST,
  DEFAULT_API_PORT,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_STREAMS,
  type HttpApiOptions,
} from "./options.js";
