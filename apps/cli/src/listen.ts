/**
 * Listening for the endpoints of a deployable process (`--health-port`,
 * `--metrics-port`): on loopback unless `--health-host` or `--metrics-host`
 * widens it, with one clear error for a port another process holds or an
 * address this machine does not have. Bound to loopback, a server answers
 * only requests naming a loopback host: the dashboard's check against DNS
 * rebinding (`@errand/dashboard`'s `foreignHostRefusal`), so a web page a
 * browser on this machine opens cannot read the endpoints through a DNS
 * name that points at 127.0.0.1.
 */
import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ErrandError } from "@errand/core";
import { isWildcardHost } from "@errand/core/ops";
import { foreignHostRefusal, isLoopbackHost } from "@errand/dashboard";
import { type ParsedArgs, usageError } from "./args.js";
import type { OptionSpec } from "./command-syntax.js";
import { systemErrorCode } from "./exit-codes.js";

/** The address the endpoints listen on unless told: loopback only. */
const DEFAULT_ENDPOINT_HOST = "127.0.0.1";

/** Where a process's endpoint listens: `--<name>-host`, `--<name>-port`. */
export interface Endpoint {
  host: string;
  port: number;
}

/** The `--<name>-host` option of an endpoint; `serves` says what it serves. */
export function hostOption(name: string, serves: string): Record<string, OptionSpec> {
  return {
    [`${name}-host`]: {
      type: "string",
      value: "<address>",
      description: `the address ${serves} listens on (default ${DEFAULT_ENDPOINT_HOST}; 0.0.0.0: every interface, for probes or scrapes from elsewhere)`,
    },
  };
}

/** The endpoint `--<name>-host` and `--<name>-port` ask for. */
export function endpointOf(args: ParsedArgs, name: string): Endpoint {
  return {
    host: args.string(`${name}-host`) ?? DEFAULT_ENDPOINT_HOST,
    port: args.integer(`${name}-port`, { min: 0, max: 65535 }, 0),
  };
}

/**
 * An HTTP server answering with `handler`; when `host` is loopback, a
 * request naming another host is refused with 403 and the reason, before
 * `handler` sees it. `what` names the server in the refusal.
 */
export function createEndpointServer(host: string, what: string, handler: RequestListener): Server {
  if (!isLoopbackHost(host)) return createServer(handler);
  return createServer((request, response) => {
    const refusal = foreignHostRefusal(what, request.headers.host);
    if (refusal === undefined) return handler(request, response);
    response.writeHead(403, { "content-type": "text/plain; charset=utf-8" });
    response.end(`${refusal}\n`);
  });
}

/**
 * Makes `server` listen at `endpoint` (port 0: a free one) and resolves with
 * the port it listens on. A port another process holds throws `port_in_use`
 * (exit 3), an address this machine does not have `invalid_spec` (exit 2),
 * each saying that `what` cannot listen and naming `--<name>-port` or
 * `--<name>-host`.
 */
export async function listenOnPort(
  server: Server,
  endpoint: Endpoint,
  what: string,
  name: string,
): Promise<number> {
  const { host, port } = endpoint;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => resolve());
    });
  } catch (error) {
    const code = systemErrorCode(error);
    if (code === "EADDRINUSE") {
      throw new ErrandError(
        "port_in_use",
        `${what} cannot listen on port ${port}: another process holds it; choose another with --${name}-port <N> (0 picks a free one)`,
        { cause: error },
      );
    }
    if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND" || code === "EAI_AGAIN") {
      throw usageError(
        `${what} cannot listen on ${JSON.stringify(host)}: not an address of this machine; choose another with --${name}-host <address>`,
        error,
      );
    }
    throw error;
  }
  return (server.address() as AddressInfo).port;
}

/** Stops `server` listening and ends its open connections. */
export async function closeServer(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeAllConnections();
  await closed;
}

/**
 * The line a server's banner adds under its URL when `host` is a wildcard
 * (`0.0.0.0`, `::`): the URL printed names loopback (core's `listenUrl`), so
 * the banner says the server answers on every interface too.
 */
export function everyInterfaceLines(host: string): string[] {
  return isWildcardHost(host)
    ? [
        `  listening on every interface (${host}): from elsewhere, open it at this machine's address`,
      ]
    : [];
}
