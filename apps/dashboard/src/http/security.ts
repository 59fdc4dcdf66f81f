/**
 * Who may talk to the dashboard, and how actions are guarded.
 *
 * - **Host**: bound to loopback, a request must name a loopback host
 *   (`localhost`, `127.0.0.1`, `[::1]`) or the public URL's host, so a web
 *   page elsewhere cannot reach the dashboard through a DNS name that points
 *   at 127.0.0.1 (`host-check.ts`, the CLI's endpoints use it too).
 * - **Token**: when one is configured, every request carries it, as
 *   `Authorization: Bearer <token>` or as the session cookie the server
 *   sets when the page is opened with `?token=<token>` (HttpOnly,
 *   SameSite=Strict, and Secure under an https public URL; the cookie holds
 *   a signed issue time, not the token, and expires: `sessions.ts`). The
 *   redirect that drops the token from the address stays on the dashboard,
 *   whatever the path (`//evil.example/`).
 * - **Actions** (POST): refused with 403 `read_only` in read-only mode; else
 *   they must come from the dashboard's own page: the `Origin` (when sent)
 *   is the dashboard's — its public URL's when it has one (or a loopback
 *   address it was reached at), else where it was reached — `Sec-Fetch-Site`
 *   (when sent) is `same-origin`, and the
 *   `X-Errand-Csrf` header carries the token of `GET /api/session`, which
 *   another site cannot read.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { isLoopbackHost, type ResolvedOptions } from "../options.js";
import { apiError } from "./api-error.js";
import { foreignHostRefusal } from "./host-check.js";
import { createSessions, SESSION_LIFETIME_SECONDS } from "./sessions.js";

/** The session cookie's name. */
export const SESSION_COOKIE = "errand_dashboard";

/** The header an action carries the CSRF token in. */
export const CSRF_HEADER = "x-errand-csrf";

/** The query parameter that hands the page its token once. */
export const TOKEN_QUERY = "token";

function digest(value: string): Buffer {
  return createHash("sha256").update(value, "utf8").digest();
}

function sameSecret(given: string, expected: Buffer): boolean {
  return timingSafeEqual(digest(given), expected);
}

/** The guards of one dashboard. */
export interface Security {
  /** The token actions carry in {@link CSRF_HEADER}. */
  readonly csrfToken: string;
  /** Refuses requests naming a foreign host (loopback binding only). */
  checkHost: MiddlewareHandler;
  /** Refuses requests without the token (when one is configured); turns `?token=` into the cookie. */
  authenticate: MiddlewareHandler;
  /** Refuses actions in read-only mode and actions that do not come from the dashboard's page. */
  guardAction: MiddlewareHandler;
}

function isApiPath(path: string): boolean {
  return path === "/api" || path.startsWith("/api/");
}

function refuseUnauthorized(c: Context): Response {
  const message = `this dashboard needs its token: send "Authorization: Bearer <token>", or open the page as /?${TOKEN_QUERY}=<token> (a session lasts ${SESSION_LIFETIME_SECONDS / 3600} hours)`;
  if (isApiPath(c.req.path)) return apiError(c, 401, "unauthorized", message);
  return c.text(`401 Unauthorized: ${message}\n`, 401);
}

/**
 * `path` as a path on this site: leading slashes (and backslashes, which
 * browsers read as slashes) collapse into one, so `//evil.example/` cannot
 * become a redirect to another host.
 */
function onSite(path: string): string {
  return `/${path.replace(/^[/\\]+/, "")}`;
}

/** The guards for `options`. */
export function createSecurity(options: ResolvedOptions): Security {
  const csrfToken = randomBytes(24).toString("base64url");
  const csrfDigest = digest(csrfToken);
  const tokenDigest = options.token === undefined ? undefined : digest(options.token);
  const sessions =
    options.token === undefined ? undefined : createSessions(options.token, options.now);

  const publicHostname = options.publicUrl?.hostname;
  const publicOrigin = options.publicUrl?.origin;

  /**
   * The page's own origin: the public URL's; else where the request was
   * reached (with a public URL, only on a loopback host: through the proxy,
   * the page is the public URL's).
   */
  const isOwnOrigin = (origin: string, reached: URL): boolean =>
    origin === publicOrigin ||
    (origin === reached.origin && (publicOrigin === undefined || isLoopbackHost(reached.hostname)));

  const checkHost: MiddlewareHandler = async (c, next) => {
    if (!options.loopback) return next();
    const refusal = foreignHostRefusal(
      "this dashboard",
      c.req.header("host"),
      publicHostname ? [publicHostname] : [],
    );
    return refusal === undefined ? next() : apiError(c, 403, "forbidden_host", refusal);
  };

  const authenticate: MiddlewareHandler = async (c, next) => {
    if (tokenDigest === undefined || sessions === undefined) return next();
    const given = c.req.query(TOKEN_QUERY);
    if (given !== undefined && c.req.method === "GET" && !isApiPath(c.req.path)) {
      if (!sameSecret(given, tokenDigest)) return refuseUnauthorized(c);
      setCookie(c, SESSION_COOKIE, sessions.issue(), {
        httpOnly: true,
        sameSite: "Strict",
        secure: options.publicUrl?.protocol === "https:",
        path: "/",
        maxAge: SESSION_LIFETIME_SECONDS,
      });
      const url = new URL(c.req.url);
      url.searchParams.delete(TOKEN_QUERY);
      return c.redirect(`${onSite(url.pathname)}${url.search}`, 303);
    }
    const bearer = /^Bearer (.+)$/i.exec(c.req.header("authorization") ?? "")?.[1];
    if (bearer !== undefined && sameSecret(bearer, tokenDigest)) return next();
    const cookie = getCookie(c, SESSION_COOKIE);
    if (cookie !== undefined && sessions.isLive(cookie)) return next();
    return refuseUnauthorized(c);
  };

  const guardAction: MiddlewareHandler = async (c, next) => {
    if (options.readOnly) {
      return apiError(
        c,
        403,
        "read_only",
        "this dashboard is read-only: it shows runs and schedules but does not cancel, replay or re-run runs, nor create, pause, resume or remove schedules",
      );
    }
    const origin = c.req.header("origin");
    if (origin !== undefined && !isOwnOrigin(origin, new URL(c.req.url))) {
      return apiError(c, 403, "csrf_refused", `actions are refused from origin ${origin}`);
    }
    const site = c.req.header("sec-fetch-site");
    if (site !== undefined && site !== "same-origin") {
      return apiError(c, 403, "csrf_refused", `actions are refused from a ${site} request`);
    }
    const csrf = c.req.header(CSRF_HEADER);
    if (csrf === undefined || !sameSecret(csrf, csrfDigest)) {
      return apiError(
        c,
        403,
        "csrf_refused",
        `actions must carry the ${CSRF_HEADER} header given by GET /api/session`,
      );
    }
    return next();
  };

  return { csrfToken, checkHost, authenticate, guardAction };
}
