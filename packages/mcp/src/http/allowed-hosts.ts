/**
 * DNS-rebinding protection for the Streamable HTTP transport
 * (docs/architecture/mcp.md#http): a request is served only when its `Host`
 * names this server — a loopback name while it listens on loopback, or a
 * host it was told to answer as — and its `Origin`, when a browser sent one,
 * names one of the same hosts. A page on another site that resolves its
 * own name to 127.0.0.1 is refused with 403 before anything is read.
 */
import { isWildcardHost } from "@errand/core/ops";

/** The names of loopback, as a Host or Origin carries them (an IPv6 address in brackets). */
const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"];

/** True when `host` (an address or a name to bind) is loopback: `localhost`, 127.0.0.0/8 or ::1. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "");
  return bare === "localhost" || bare === "::1" || /^127(\.\d{1,3}){3}$/.test(bare);
}

/**
 * The hostnames a server bound to `bindHost` answers as: loopback's while it
 * listens there (a wildcard address included), the address it is bound to,
 * and the `extra` names it was given (the names its clients reach it by).
 */
export function allowedHostnames(bindHost: string, extra: readonly string[] = []): Set<string> {
  const names = new Set(extra.map((name) => name.toLowerCase()));
  if (isLoopbackHost(bindHost) || isWildcardHost(bindHost)) {
    for (const name of LOOPBACK_NAMES) names.add(name);
  }
  if (!isWildcardHost(bindHost)) {
    names.add(bindHost.includes(":") ? `[${bindHost}]` : bindHost.toLowerCase());
  }
  return names;
}

/** The hostname of a `Host` header (without its port), lower-cased; `undefined` for none. */
function hostnameOf(host: string | undefined): string | undefined {
  if (host === undefined || host === "") return undefined;
  try {
    return new URL(`http://${host}`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/** Why a request's `host` and `origin` are refused, or `undefined` when `allowed` names them. */
export function refusedHost(
  allowed: ReadonlySet<string>,
  host: string | undefined,
  origin: string | undefined,
): string | undefined {
  const hostname = hostnameOf(host);
  if (hostname === undefined || !allowed.has(hostname)) {
    return `Host ${JSON.stringify(host ?? "")} is not a name of this server`;
  }
  if (origin === undefined) return undefined;
  let originHost: string;
  try {
    originHost = new URL(origin).hostname.toLowerCase();
  } catch {
    return `Origin ${JSON.stringify(origin)} is not a URL`;
  }
  return allowed.has(originHost) ? undefined : `Origin ${JSON.stringify(origin)} is not allowed`;
}
