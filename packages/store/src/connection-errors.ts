/**
 * What went wrong reaching Redis, named. ioredis rejects a connection that
 * fails with a bare "Connection is closed."; the error it emitted before says
 * why — refused credentials, a user without a command it needs, a TLS
 * handshake that failed, a server that cannot be reached — and
 * {@link redisConnectionError} turns that error into one `ErrandError` a
 * person can act on.
 */
import { ErrandError } from "@errand/core";

/** Why Redis could not be used, in `details.reason` of {@link redisConnectionError}'s error. */
type RedisFailureReason = "credentials" | "permission" | "tls" | "unreachable";

/** The `code` of a Node or OpenSSL error, if it has one. */
function codeOf(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null || !("code" in error)) return undefined;
  return typeof error.code === "string" ? error.code : undefined;
}

/** `error`'s message on one line. */
function messageOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/\s+/g, " ").trim();
}

/** True for an error of a TLS handshake: an untrusted or mismatched certificate, or no TLS spoken. */
function isTlsFailure(code: string | undefined, message: string): boolean {
  if (code !== undefined && /CERT|^ERR_TLS_|^ERR_SSL_|SELF_SIGNED|UNABLE_TO_|^EPROTO$/.test(code)) {
    return true;
  }
  return /certificate|SSL routines|wrong version number/i.test(message);
}

/** What to do about a failed TLS handshake, by its cause. */
function tlsFix(code: string | undefined, message: string): string {
  if (code === "ERR_TLS_CERT_ALTNAME_INVALID") {
    return "connect by a host name the server's certificate lists (or issue it one that names this host)";
  }
  if (/wrong version number|packet length too long|^ERR_SSL_/i.test(`${code ?? ""} ${message}`)) {
    return "this port does not speak TLS: use redis:// here, or the server's tls-port with rediss://";
  }
  return "make this process trust the CA that signed the server's certificate: NODE_EXTRA_CA_CERTS=<ca.pem> (or ioredis' tls.ca option)";
}

/** A hint for a connection the server closed or never answered, by URL scheme. */
function schemeHint(target: string): string {
  if (target.startsWith("rediss://")) {
    return " (if this port does not speak TLS, use redis://)";
  }
  if (target.startsWith("redis://")) return " (if the server only accepts TLS, use rediss://)";
  return "";
}

/**
 * The `redis_unavailable` {@link ErrandError} for `error`, met connecting to
 * (or talking to) the Redis at `target` — a URL or address already stripped of
 * its credentials. `details.reason` says why:
 * - `credentials`: Redis refused the user name and password (`WRONGPASS`),
 *   or wants them and none were given (`NOAUTH`);
 * - `permission`: the user may not run a command or reach a key or channel
 *   errand needs (`NOPERM`): `errand doctor --acl` prints the ACL it needs;
 * - `tls`: the TLS handshake failed (an untrusted or mismatched certificate,
 *   or a port that does not speak TLS);
 * - `unreachable`: anything else (refused, reset, timed out, closed), the
 *   only one that is `retryable`.
 */
export function redisConnectionError(error: unknown, target: string): ErrandError {
  const message = messageOf(error);
  const code = codeOf(error);
  const named = (reason: RedisFailureReason, text: string) =>
    new ErrandError("redis_unavailable", text, {
      cause: error,
      retryable: reason === "unreachable",
      details: { reason, ...(code === undefined ? {} : { code }) },
    });
  if (/\bWRONGPASS\b/.test(message)) {
    return named(
      "credentials",
      `Redis at ${target} refused the credentials (authentication failed: ${message}). ` +
        "Check the user name and password in the URL: redis://<user>:<password>@host:port",
    );
  }
  if (/\bNOAUTH\b/.test(message)) {
    return named(
      "credentials",
      `Redis at ${target} requires authentication and none was given: authentication failed (${message}). ` +
        "Put the user name and password in the URL: redis://<user>:<password>@host:port",
    );
  }
  if (/\bNOPERM\b/.test(message)) {
    return named(
      "permission",
      `Redis at ${target} accepted the credentials, but its user may not do what errand needs (${message}). ` +
        "Give the user the ACL that errand doctor --acl prints",
    );
  }
  if (isTlsFailure(code, message)) {
    return named(
      "tls",
      `the TLS handshake with Redis at ${target} failed: ${message}${code === undefined ? "" : ` (${code})`}. ` +
        `Fix: ${tlsFix(code, message)}`,
    );
  }
  const closed = /Connection is closed|ECONNRESET|ETIMEDOUT/.test(`${message} ${code ?? ""}`);
  return named(
    "unreachable",
    `cannot reach Redis at ${target}: ${message}${closed ? schemeHint(target) : ""}`,
  );
}
