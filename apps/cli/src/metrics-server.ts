/**
 * `--metrics-port`: `GET /metrics`, errand's Prometheus metrics in the text
 * format, on `errand worker` and `errand collector` (the dashboard serves
 * its own at `/metrics` on its port).
 *
 * The server is one of its own, apart from `--health-port`'s: a scrape
 * reads Redis (queue depth, collector lag) and must never hold up a probe,
 * and the two are usually exposed differently (probes to the kubelet,
 * metrics to Prometheus). Giving both the same port is refused. It listens
 * on loopback unless `--metrics-host` widens it (`listen.ts`: and then
 * answers only requests naming a loopback host).
 */
import type { PrometheusMetrics } from "@errand/engine";
import { createLogger } from "@errand/engine/ops";
import type { ParsedArgs } from "./args.js";
import { usageError } from "./args.js";
import type { OptionSpec } from "./command-syntax.js";
import {
  closeServer,
  createEndpointServer,
  endpointOf,
  hostOption,
  listenOnPort,
} from "./listen.js";

/** `--metrics-port` and `--metrics-host`, for the commands that serve `/metrics`. */
export const METRICS_PORT_OPTION: Readonly<Record<string, OptionSpec>> = {
  "metrics-port": {
    type: "string",
    value: "<N>",
    description: "serve GET /metrics (Prometheus text) on this port (0: a free one)",
  },
  ...hostOption("metrics", "/metrics"),
};

/** The `/metrics` endpoint of one process (doing nothing when `--metrics-port` was not given). */
export interface MetricsServer {
  /** The port listened on, or `undefined` without `--metrics-port`. */
  readonly port: number | undefined;
  /** Stops listening. */
  close(): Promise<void>;
}

const NO_METRICS_SERVER: MetricsServer = { port: undefined, async close() {} };

/**
 * Serves `metrics` on `--metrics-port` (or returns a server that does
 * nothing when it was not given, or when `metrics` is `false`: none kept). Throws `invalid_spec` when it is the same
 * port as `--health-port`, `port_in_use` (exit 3) when another process holds it.
 */
export async function startMetricsServer(
  args: ParsedArgs,
  metrics: PrometheusMetrics | false,
): Promise<MetricsServer> {
  if (args.string("metrics-port") === undefined || metrics === false) return NO_METRICS_SERVER;
  const endpoint = endpointOf(args, "metrics");
  const { port } = endpoint;
  if (port !== 0 && args.string("health-port") === String(port)) {
    throw usageError(
      `--metrics-port and --health-port are both ${port}: /metrics has a port of its own; choose another`,
    );
  }
  const server = createEndpointServer(endpoint.host, "/metrics", (request, response) => {
    const path = new URL(request.url ?? "/", "http://metrics").pathname;
    if (path !== "/metrics" || (request.method !== "GET" && request.method !== "HEAD")) {
      response.writeHead(404, { "content-type": "text/plain; charset=utf-8" });
      response.end("not found: GET /metrics\n");
      return;
    }
    metrics.text().then(
      (text) => {
        response.writeHead(200, { "content-type": metrics.contentType });
        response.end(request.method === "HEAD" ? undefined : text);
      },
      (error: unknown) => {
        response.writeHead(500, { "content-type": "text/plain; charset=utf-8" });
        response.end(`${error instanceof Error ? error.message : String(error)}\n`);
      },
    );
  });
  const listening = await listenOnPort(server, endpoint, "the metrics endpoint", "metrics");
  createLogger().info(
    { metricsHost: endpoint.host, metricsPort: listening },
    "metrics endpoint listening",
  );
  return { port: listening, close: () => closeServer(server) };
}
