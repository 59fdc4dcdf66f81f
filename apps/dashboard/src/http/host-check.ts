/**
 * The check against DNS rebinding, one piece for every HTTP listener of
 * errand bound to loopback — the dashboard, and the CLI's `--metrics-port`
 * and `--health-port` endpoints: a request must name a loopback host
 * (`localhost`, `127.0.0.1`, `[::1]`) or a host the server is also served
 * at, so a web page elsewhere cannot reach the server through a DNS name that
 * points at 127.0.0.1. A listener bound beyond loopback is reached by
 * addresses it cannot know (a pod's, a proxy's) and does not check.
 */
import { isLoopbackHost } from "../options.js";

/** The hostname a `Host` header names, or "" when it does not parse. */
function hostnameOf(host: string): string {
  try {
    return new URL(`http://${host}`).hostname;
  } catch {
    return "";
  }
}

/**
 * Why `what`, listening on loopback, refuses a request whose `Host` header is
 * `host`, or undefined when the header names a loopback host or one of
 * `alsoHostnames`.
 */
export function foreignHostRefusal(
  what: string,
  host: string | undefined,
  alsoHostnames: readonly string[] = [],
): string | undefined {
  const hostname = hostnameOf(host ?? "");
  if (isLoopbackHost(hostname) || alsoHostnames.includes(hostname)) return undefined;
  const known = ["localhost", "127.0.0.1", "[::1]", ...alsoHostnames];
  return `${what} listens on loopback and answers only requests for ${known.join(", ")}, not ${JSON.stringify(host ?? "")}`;
}
