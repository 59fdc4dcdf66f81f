/**
 * The URL a server errand starts (the HTTP API, the dashboard, the MCP
 * server) prints for the address it listens on: one a user can open. A
 * wildcard address (`0.0.0.0`, `::`) is where the server listens, on every
 * interface, but no address to browse to: its URL names loopback instead
 * (`127.0.0.1`, `[::1]`), which every interface includes.
 */

/** The loopback address each wildcard address is opened at. */
const LOOPBACK_OF_WILDCARD: Readonly<Record<string, string>> = {
  "0.0.0.0": "127.0.0.1",
  "::": "::1",
  "[::]": "::1",
};

/** True for an address that listens on every interface (`0.0.0.0`, `::`). */
export function isWildcardHost(host: string): boolean {
  return Object.hasOwn(LOOPBACK_OF_WILDCARD, host);
}

/**
 * `http://host:port` (and `path`) for a server listening on `host`: a
 * wildcard host is given as loopback, an IPv6 address in brackets.
 */
export function listenUrl(host: string, port: number, path = ""): string {
  const shown = isWildcardHost(host) ? LOOPBACK_OF_WILDCARD[host]! : host;
  const bracketed = shown.includes(":") && !shown.startsWith("[") ? `[${shown}]` : shown;
  return `http://${bracketed}:${port}${path}`;
}
