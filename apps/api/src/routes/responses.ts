/**
 * The error answers every route may give, for the OpenAPI document: each
 * route lists its own success beside these.
 */
import { ApiError } from "../schemas/responses.js";

const errorContent = { "application/json": { schema: ApiError } };

/** The error answers of a route: 400, 401, 403, 404, 413, 415, 429 and 503. */
export const ERROR_RESPONSES = {
  400: {
    description:
      "The request does not match this document (`invalid_request`), or errand refused it (`invalid_spec`, `invalid_input`, …)",
    content: errorContent,
  },
  401: {
    description: "No key, or a key that is not valid (`unauthorized`)",
    content: errorContent,
  },
  403: {
    description:
      "The key lacks the scope or agent (`forbidden`), or the Host or Origin is foreign (`forbidden_host`)",
    content: errorContent,
  },
  404: {
    description: "No such run, waitpoint or route (`not_found`); another tenant's run is unknown",
    content: errorContent,
  },
  413: {
    description: "The body is too large (`payload_too_large`), or an input is (`input_too_large`)",
    content: errorContent,
  },
  415: {
    description: "A body sent without `content-type: application/json` (`invalid_request`)",
    content: errorContent,
  },
  429: {
    description: "The key's requests per minute are spent (`rate_limited`): see `Retry-After`",
    content: errorContent,
  },
  503: {
    description:
      "Redis does not answer (`redis_unavailable`, retryable; a fire whose run no replica confirmed in time carries its `runId`), or the streams are full (`busy`)",
    content: errorContent,
  },
} as const;

/** A JSON success answer of `schema`. */
export function jsonAnswer<Schema>(description: string, schema: Schema) {
  return { description, content: { "application/json": { schema } } };
}
