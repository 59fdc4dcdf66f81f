/**
 * `--health-port`: the endpoints an orchestrator (Kubernetes, compose) probes
 * on `errand worker` and `errand collector`.
 *
 * - `GET /livez` answers 200 while the process runs, draining included: a
 *   worker letting its runs finish must not be killed for it.
 * - `GET /readyz` answers 200 once the process has started its work and its
 *   Redis answers PING within a second; 503, with the reason in one line,
 *   before that, while Redis does not answer, and from the first stop signal on.
 *
 * The server listens on loopback unless `--health-host` widens it (the
 * kubelet probes the pod's address: `--health-host 0.0.0.0` there; bound to
 * loopback, it answers only requests naming a loopback host, `listen.ts`)
 * and answers nothing else: the bodies say no more than the state.
 * PING goes over a connection of its own that never queues a command while
 * Redis is away, so a probe is answered at once instead of waiting for it.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { createLogger, openRedisUrl } from "@errand/engine/ops";
import type { ParsedArgs } from "./args.js";
import type { OptionSpec } from "./command-syntax.js";
import {
  closeServer,
  createEndpointServer,
  endpointOf,
  hostOption,
  listenOnPort,
} from "./listen.js";
import { oneLine } from "./output.js";

/** `--health-port` and `--health-host`, for the commands that serve the endpoints. */
export const HEALTH_PORT_OPTION: Readonly<Record<string, OptionSpec>> = {
  "health-port": {
    type: "string",
    value: "<N>",
    description: "serve GET /livez and GET /readyz on this port (0: a free one)",
  },
  ...hostOption("health", "/livez and /readyz"),
};

/** How long `/readyz` waits for PONG before Redis counts as not answering. */
const PING_TIMEOUT_MS = 1_000;

/** The longest pause between two attempts to reach a Redis that went away. */
const MAX_RECONNECT_PAUSE_MS = 1_000;

/** Where the process stands, as `/readyz` reports it. */
type Phase = "starting" | "ready" | "stopping";

/** The endpoints of one process (doing nothing when `--health-port` was not given). */
export interface HealthServer {
  /** The port listened on, or `undefined` without `--health-port`. */
  readonly port: number | undefined;
  /** The process has started its work: `/readyz` now depends on Redis alone. */
  ready(): void;
  /** A stop signal came: `/readyz` answers 503 from now on, `/livez` still 200. */
  stopping(): void;
  /** Stops listening and closes the PING connection. */
  close(): Promise<void>;
}

const NO_HEALTH_SERVER: HealthServer = {
  port: undefined,
  ready() {},
  stopping() {},
  async close() {},
};

/**
 * Starts the endpoints on `--health-port` at `--health-host` (or returns one
 * that does nothing when no port was given), checking the Redis at
 * `redisUrl`. A port another process holds throws `port_in_use` (exit 3)
 * naming `--health-port`.
 */
export async function startHealthServer(args: ParsedArgs, redisUrl: string): Promise<HealthServer> {
  if (args.string("health-port") === undefined) return NO_HEALTH_SERVER;
  const endpoint = endpointOf(args, "health");
  let phase: Phase = "starting";
  const reconnectPause = (attempt: number) => Math.min(attempt * 100, MAX_RECONNECT_PAUSE_MS);
  const redis = openRedisUrl(redisUrl, {
    redisOptions: {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: PING_TIMEOUT_MS,
      retryStrategy: reconnectPause,
    },
    clusterOptions: { enableOfflineQueue: false, clusterRetryStrategy: reconnectPause },
  });
  // A Redis that went away is what /readyz reports; the event would only be noise.
  redis.on("error", () => {});

  const readiness = async (): Promise<{ status: number; text: string }> => {
    if (phase === "starting") return { status: 503, text: "starting" };
    if (phase === "stopping") return { status: 503, text: "shutting down" };
    try {
      await redis.ping();
      return { status: 200, text: "ok" };
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return { status: 503, text: `redis does not answer: ${oneLine(reason)}` };
    }
  };

  const reply = async (method: string | undefined, path: string) => {
    if (method !== "GET" && method !== "HEAD") return { status: 405, text: "only GET" };
    if (path === "/livez") return { status: 200, text: "ok" };
    if (path === "/readyz") return readiness();
    return { status: 404, text: "not found: GET /livez or /readyz" };
  };

  const answer = async (request: IncomingMessage, response: ServerResponse) => {
    const path = new URL(request.url ?? "/", "http://health").pathname;
    const { status, text } = await reply(request.method, path);
    response.writeHead(status, { "content-type": "text/plain; charset=utf-8" });
    response.end(request.method === "HEAD" ? undefined : `${text}\n`);
  };

  const server = createEndpointServer(
    endpoint.host,
    "the health endpoints",
    (request, response) => void answer(request, response),
  );
  let listening: number;
  try {
    listening = await listenOnPort(server, endpoint, "the health endpoints", "health");
  } catch (error) {
    redis.disconnect();
    throw error;
  }
  createLogger().info(
    { healthHost: endpoint.host, healthPort: listening },
    "health endpoints listening",
  );
  return {
    port: listening,
    ready() {
      if (phase === "starting") phase = "ready";
    },
    stopping() {
      phase = "stopping";
    },
    async close() {
      await closeServer(server);
      redis.disconnect();
    },
  };
}
