/**
 * `errand api`: the HTTP API `/v1` as a process of its own (no worker, no
 * collector, no dashboard) on a deployment's Redis, until a stop signal;
 * `--openapi` prints its OpenAPI document instead. Why a process of its own:
 * docs/architecture/http-api.md#a-process-of-its-own.
 */
import {
  createHttpApi,
  DEFAULT_API_HOST,
  DEFAULT_API_PORT,
  type HttpApi,
  type HttpApiOptions,
  openApiDocument,
} from "@errand/api";
import { ErrandError } from "@errand/core";
import { DEFAULT_KEY_PREFIX } from "@errand/store/ops";
import { CONNECTION_OPTIONS, type CommandSpec } from "../command.js";
import {
  DURABILITY_OPTION,
  durabilityOption,
  RUN_KEY_EXPIRY_OPTION,
  runKeyExpiryOption,
} from "../durability.js";
import { EXIT, systemErrorCode } from "../exit-codes.js";
import { catchStopSignals } from "../lifecycle.js";
import { everyInterfaceLines } from "../listen.js";
import { stderrLogger } from "../log.js";
import { writeLines } from "../output.js";
import { connectRedis, keyPrefix, redactUrl, requireRedisUrl } from "../redis.js";

/** `createHttpApi(options)`; a taken port throws `port_in_use`, naming `--port`. */
async function startApi(options: HttpApiOptions): Promise<HttpApi> {
  try {
    return await createHttpApi(options);
  } catch (error) {
    if (systemErrorCode(error) !== "EADDRINUSE") throw error;
    throw new ErrandError(
      "port_in_use",
      `errand api cannot listen on ${options.host}:${options.port}: another process holds that port; choose another with --port <N> (0 picks a free one)`,
      { cause: error },
    );
  }
}

/** `api`. */
export const apiCommand: CommandSpec = {
  usage:
    "errand api [--host <address>] [--port N] [--require-key] [--dashboard-url <url>] [--openapi] [--durability <acknowledged|replicated>] [--redis <url>] [--prefix <prefix>]",
  description: [
    "Serves errand's HTTP API /v1 (fire, get, collect, list and cancel runs, their events",
    "and deltas as server-sent events, waitpoints, agents) on the Redis of REDIS_URL or",
    "--redis until Ctrl-C, SIGTERM or SIGHUP, then exits 0. It runs no worker and no",
    `collector. It listens on ${DEFAULT_API_HOST}:${DEFAULT_API_PORT} unless told (--port 0 picks a free port)`,
    "and prints its URL; /livez, /readyz and /metrics are served beside /v1, and",
    "/v1/openapi.json is its OpenAPI 3.1 document. Every request to /v1 needs a key",
    "(Authorization: Bearer <key>, from errand keys create) beyond loopback; on loopback a",
    "request without one is the operator's own, unless --require-key. A port another",
    "process holds is refused with exit code 3, naming --port. --openapi prints the",
    "document and exits. With --durability replicated a fire is answered once a Redis",
    "replica has its runs; one no replica confirmed in time is answered 503 with its runId",
    "(send the request again with the same Idempotency-Key).",
  ].join("\n"),
  options: {
    host: {
      type: "string",
      value: "<address>",
      description: `the address to listen on (default ${DEFAULT_API_HOST})`,
    },
    port: {
      type: "string",
      value: "<N>",
      description: `the port to listen on (default ${DEFAULT_API_PORT}; 0: a free one)`,
    },
    "require-key": {
      type: "boolean",
      description: "ask every request for a key, on loopback too",
    },
    "dashboard-url": {
      type: "string",
      value: "<url>",
      description: "the dashboard's URL: every run answered carries viewUrl, its page there",
    },
    openapi: { type: "boolean", description: "print the OpenAPI document and exit" },
    ...DURABILITY_OPTION,
    ...RUN_KEY_EXPIRY_OPTION,
    ...CONNECTION_OPTIONS,
  },
  async run(args, io) {
    if (args.flag("openapi")) {
      // Written as it is: the CLI's JSON output redacts secret-looking keys, and `token` is a field here.
      io.stdout.write(`${JSON.stringify(openApiDocument(), null, 2)}\n`);
      return EXIT.ok;
    }
    const host = args.string("host") ?? DEFAULT_API_HOST;
    const port = args.integer("port", { min: 0, max: 65535 }, DEFAULT_API_PORT);
    const prefix = keyPrefix(args);
    const writeOptions = { ...runKeyExpiryOption(args, io), ...durabilityOption(args, io) };
    const url = requireRedisUrl(args, io);
    const dashboardUrl = args.string("dashboard-url");
    const signals = catchStopSignals();
    try {
      (await connectRedis(url)).disconnect();
      const api = await startApi({
        connection: url,
        prefix,
        host,
        port,
        ...(dashboardUrl === undefined ? {} : { dashboardUrl }),
        keysOnLoopback: args.flag("require-key"),
        ...writeOptions,
        logger: stderrLogger(io, "warn", "errand-api"),
      });
      try {
        writeLines(io, [
          `errand api: ${api.url}/v1  (its OpenAPI document: ${api.url}/v1/openapi.json)`,
          ...everyInterfaceLines(host),
          api.keylessIsOperator
            ? "  requests without a key are the operator's own (loopback)"
            : "  every request needs a key: Authorization: Bearer <key>",
          `  REDIS_URL=${redactUrl(url)}${prefix === DEFAULT_KEY_PREFIX ? "" : `  (prefix ${prefix})`}`,
          "  Ctrl-C to stop.",
        ]);
        await signals.first;
      } finally {
        await api.close();
      }
    } finally {
      signals.release();
    }
    return EXIT.ok;
  },
};
