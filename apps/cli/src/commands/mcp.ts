/**
 * `errand mcp`: errand's MCP server (docs/guide/mcp.md) on the Redis of
 * REDIS_URL — on stdio by default, for a client that spawns it, or on
 * Streamable HTTP with `--http`. stdio and keyless requests on loopback act
 * with the loopback grant; every request to a server beyond loopback needs
 * an access key (`errand keys create`), whose scopes, agents and tenant
 * narrow what its tools do. stdout carries only JSON-RPC on stdio: every
 * log line goes to stderr.
 */
import { createAccessKeys, createErrand, LOOPBACK_GRANT, openConnection } from "@errand/engine";
import {
  accessByKeys,
  grantedServices,
  isLoopbackHost,
  type SharedServices,
  serveMcpOverHttp,
  serveMcpOverStdio,
} from "@errand/mcp";
import { usageError } from "../args.js";
import { cliVersion } from "../cli-version.js";
import { CONNECTION_OPTIONS, type CommandSpec } from "../command.js";
import { dashboardUrlOption } from "../dashboard-url.js";
import {
  DURABILITY_OPTION,
  durabilityOption,
  RUN_KEY_EXPIRY_OPTION,
  runKeyExpiryOption,
} from "../durability.js";
import { EXIT } from "../exit-codes.js";
import { catchStopSignals } from "../lifecycle.js";
import { everyInterfaceLines } from "../listen.js";
import { stderrLogger } from "../log.js";
import { writeLines } from "../output.js";
import { connectRedis, keyPrefix, requireRedisUrl } from "../redis.js";

/** Where `--http` listens unless told. */
const DEFAULT_MCP_HOST = "127.0.0.1";
const DEFAULT_MCP_PORT = 4041;

/** `mcp`. */
export const mcpCommand: CommandSpec = {
  usage:
    "errand mcp [--http [--host <address>] [--port N] [--allowed-host <name>]...] [--durability <acknowledged|replicated>] [--redis <url>] [--prefix <prefix>]",
  description: [
    "Serves errand's MCP tools (list_agents, start_runs, wait_runs, get_run, cancel_runs,",
    "list_waiting, answer_waiting) and the resource errand://runs/<runId>/result on the Redis",
    "of REDIS_URL or --redis. Without --http it speaks MCP on stdin and stdout, for a client",
    "that spawns it (claude mcp add errand -- npx errand mcp), until the client closes stdin.",
    `With --http it serves Streamable HTTP at /mcp on ${DEFAULT_MCP_HOST}:${DEFAULT_MCP_PORT} (--port 0: a free port),`,
    "prints its URL and serves until Ctrl-C or SIGTERM. On loopback a request without a key",
    "may do everything; beyond loopback (--host 0.0.0.0) every request needs",
    "Authorization: Bearer <key> from errand keys create, and a key's scopes, agents and",
    "tenant narrow what its tools do (401 without one, 429 past its rate). Requests whose",
    "Host or Origin names another server are refused (DNS rebinding): --allowed-host adds",
    "a name (a proxy's, the public one). Runs carry viewUrl when ERRAND_DASHBOARD_URL is",
    "set. A port another process holds is refused with exit code 3. With --durability",
    "replicated start_runs answers a run once a Redis replica has it; one no replica",
    "confirmed in time fails with its runId (send it again with the same idempotencyKey).",
  ].join("\n"),
  options: {
    http: { type: "boolean", description: "serve Streamable HTTP instead of stdio" },
    host: {
      type: "string",
      value: "<address>",
      description: `with --http, the address to listen on (default ${DEFAULT_MCP_HOST}; beyond loopback every request needs a key)`,
    },
    port: {
      type: "string",
      value: "<N>",
      description: `with --http, the port to listen on (default ${DEFAULT_MCP_PORT}; 0: a free one)`,
    },
    "allowed-host": {
      type: "string",
      multiple: true,
      value: "<name>",
      description: "with --http, a hostname Host and Origin may name besides loopback's",
    },
    ...DURABILITY_OPTION,
    ...RUN_KEY_EXPIRY_OPTION,
    ...CONNECTION_OPTIONS,
  },
  async run(args, io) {
    const http = args.flag("http");
    const host = args.string("host") ?? DEFAULT_MCP_HOST;
    const port = args.integer("port", { min: 0, max: 65535 }, DEFAULT_MCP_PORT);
    const allowedHosts = args.strings("allowed-host");
    if (!http && (args.string("host") !== undefined || args.string("port") !== undefined)) {
      throw usageError("--host and --port go with --http: without it errand mcp speaks on stdio");
    }
    const prefix = keyPrefix(args);
    const writeOptions = { ...runKeyExpiryOption(args, io), ...durabilityOption(args, io) };
    const url = requireRedisUrl(args, io);
    (await connectRedis(url)).disconnect();
    const logger = stderrLogger(io, "warn", "errand-mcp");
    const errand = createErrand({
      connection: url,
      prefix,
      logger,
      ...dashboardUrlOption(io),
      ...writeOptions,
    });
    const registry = openConnection(url, { logger, name: "mcp agent registry" });
    const shared: SharedServices = {
      errand,
      registry,
      logger,
      reportUnexpected: (error, tool) => logger.error({ err: error, tool }, "an MCP tool failed"),
    };
    const identity = { name: "errand", version: cliVersion() };
    const signals = catchStopSignals();
    try {
      if (!http) {
        const server = await serveMcpOverStdio(grantedServices(shared, LOOPBACK_GRANT), identity);
        await Promise.race([server.closed, signals.first]);
        await server.close();
        return EXIT.ok;
      }
      const accessKeys = createAccessKeys({ connection: url, prefix, logger });
      const server = await serveMcpOverHttp({
        host,
        port,
        allowedHosts,
        identity,
        access: accessByKeys({
          accessKeys,
          loopback: isLoopbackHost(host),
          servicesFor: (grant) => grantedServices(shared, grant),
        }),
      }).catch(async (error: unknown) => {
        await accessKeys.close();
        throw error;
      });
      try {
        writeLines(io, [
          `errand mcp: ${server.url}`,
          ...everyInterfaceLines(host),
          "  Ctrl-C to stop.",
        ]);
        await signals.first;
      } finally {
        await server.close();
        await accessKeys.close();
      }
      return EXIT.ok;
    } finally {
      signals.release();
      registry.disconnect();
      await errand.close();
    }
  },
};
