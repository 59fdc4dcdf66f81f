/**
 * Request bodies are small: the only bodies the API reads are a cancel
 * request (`{ cascade?, reason? }`, a reason of at most 500 characters) and
 * an answer to a waitpoint (`{ token, answer, answeredBy? }`). A request
 * whose body is larger than {@link MAX_REQUEST_BODY_BYTES} is refused with
 * 413 `payload_too_large` before its body is read: at once when its
 * `Content-Length` says so (whatever the method), else (a chunked body) as
 * soon as the bytes read pass the limit. The answer closes the connection, so
 * the rest of the body is never read.
 */
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { apiError } from "./api-error.js";

/** The largest request body the dashboard accepts: 16 KiB. */
export const MAX_REQUEST_BODY_BYTES = 16 * 1024;

function refuseTooLarge(c: Context): Response {
  c.header("Connection", "close");
  return apiError(
    c,
    413,
    "payload_too_large",
    `request bodies are limited to ${MAX_REQUEST_BODY_BYTES} bytes`,
  );
}

const limitStreamedBody = bodyLimit({ maxSize: MAX_REQUEST_BODY_BYTES, onError: refuseTooLarge });

/** Refuses a request whose body passes {@link MAX_REQUEST_BODY_BYTES}. */
export const limitRequestBody: MiddlewareHandler = async (c, next) => {
  const declared = c.req.header("content-length");
  if (declared !== undefined && !(Number(declared) <= MAX_REQUEST_BODY_BYTES)) {
    return refuseTooLarge(c);
  }
  return limitStreamedBody(c, next);
};
