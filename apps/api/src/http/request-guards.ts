/**
 * What a request must pass before a route reads it
 * (docs/architecture/http-api.md#limits):
 *
 * - on a loopback listener, a `Host` naming loopback (the dashboard's
 *   `foreignHostRefusal`: no DNS rebinding), and an `Origin`, when a browser
 *   sends one, naming loopback too: a web page elsewhere cannot drive the API
 *   through the browser of the person running it; beyond loopback, a browser's
 *   cross-site request is refused whatever its origin (the API answers no CORS);
 * - a body of at most `maxBodyBytes`: refused at once by `Content-Length`,
 *   else once the bytes read pass it (413 `payload_too_large`, the
 *   connection closed);
 * - a JSON body nested at most {@link MAX_BODY_NESTING} deep (400 `invalid_request`).
 */
import { foreignHostRefusal, isLoopbackHost } from "@errand/dashboard";
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { MAX_BODY_NESTING } from "../options.js";
import { apiError } from "./errors.js";

/** The deepest nesting of `text`'s JSON arrays and objects, counted without parsing. */
function jsonNesting(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 0x5c)
        index += 1; // a backslash escapes the next character
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x7b || char === 0x5b) deepest = Math.max(deepest, ++depth);
    else if (char === 0x7d || char === 0x5d) depth -= 1;
  }
  return deepest;
}

/** The Host and Origin checks of a listener on `host`. */
export function checkHostAndOrigin(host: string): MiddlewareHandler {
  const loopback = isLoopbackHost(host);
  return async (c, next) => {
    const origin = c.req.header("origin");
    const fetchSite = c.req.header("sec-fetch-site");
    if (loopback) {
      const refusal =
        foreignHostRefusal("errand api", c.req.header("host")) ??
        (origin === undefined ? undefined : foreignHostRefusal("errand api", hostOfOrigin(origin)));
      if (refusal !== undefined) return apiError(c, 403, "forbidden_host", refusal);
    } else if (fetchSite === "cross-site") {
      return apiError(c, 403, "forbidden_host", "errand api answers no cross-site browser request");
    }
    await next();
  };
}

function hostOfOrigin(origin: string): string {
  try {
    return new URL(origin).host;
  } catch {
    return "";
  }
}

/** Refuses a body over `maxBytes` (register {@link limitNesting} after it). */
export function limitBodySize(maxBytes: number): MiddlewareHandler {
  const tooLarge = (c: Context) => {
    c.header("Connection", "close");
    return apiError(c, 413, "payload_too_large", `request bodies are limited to ${maxBytes} bytes`);
  };
  const streamed = bodyLimit({ maxSize: maxBytes, onError: tooLarge });
  return async (c, next) => {
    const declared = c.req.header("content-length");
    if (declared !== undefined && !(Number(declared) <= maxBytes)) return tooLarge(c);
    return streamed(c, next);
  };
}

/** Refuses a JSON body nested deeper than {@link MAX_BODY_NESTING}, before any parser walks it. */
export const limitNesting: MiddlewareHandler = async (c, next) => {
  if (c.req.method === "POST" && (c.req.header("content-type") ?? "").includes("json")) {
    const nesting = jsonNesting(await c.req.text());
    if (nesting > MAX_BODY_NESTING) {
      return apiError(
        c,
        400,
        "invalid_request",
        `the body nests ${nesting} deep; at most ${MAX_BODY_NESTING}`,
      );
    }
  }
  await next();
};
