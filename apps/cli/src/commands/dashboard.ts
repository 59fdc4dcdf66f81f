/**
 * `errand dashboard`: the dashboard alone — no worker, no collector — on a
 * deployment's Redis, until a stop signal.
 */
import {
  DEFAULT_DASHBOARD_HOST,
  DEFAULT_DASHBOARD_PORT,
  SESSION_LIFETIME_SECONDS,
  TOKEN_ENV,
  TOKEN_RULE,
} from "@errand/dashboard";
import { DEFAULT_KEY_PREFIX } from "@errand/store/ops";
import { CONNECTION_OPTIONS, type CommandSpec } from "../command.js";
import { PUBLIC_URL_OPTION, publicUrlOption, startDashboard } from "../dashboard-server.js";
import { RUN_KEY_EXPIRY_OPTION, runKeyExpiryOption } from "../durability.js";
import { EXIT } from "../exit-codes.js";
import { catchStopSignals } from "../lifecycle.js";
import { everyInterfaceLines } from "../listen.js";
import { stderrLogger } from "../log.js";
import { writeLines } from "../output.js";
import { connectRedis, keyPrefix, redactUrl, requireRedisUrl } from "../redis.js";

/** `dashboard`. */
export const dashboardCommand: CommandSpec = {
  usage:
    "errand dashboard [--host <address>] [--port N] [--public-url <url>] [--read-only] [--redis <url>] [--prefix <prefix>]",
  description: [
    "Serves the dashboard (queues, workers, runs, their timelines and trees, live) on the",
    "Redis of REDIS_URL or --redis until Ctrl-C, SIGTERM or SIGHUP, then exits 0. It runs",
    "no worker and no collector: start those with errand worker and errand collector (or",
    `errand up). It listens on ${DEFAULT_DASHBOARD_HOST}:${DEFAULT_DASHBOARD_PORT} unless told (--port 0 picks a free port)`,
    "and prints its URL. Listening beyond loopback (--host 0.0.0.0, a LAN address)",
    `requires ${TOKEN_ENV}, which every request must then carry (a token needs`,
    `${TOKEN_RULE});`,
    "without it, or with a weaker one, the command is refused with exit code 2. The session",
    `cookie the page gets lasts ${SESSION_LIFETIME_SECONDS / 3600} hours; changing the token ends every session. Behind a reverse`,
    "proxy (one that terminates TLS, say), --public-url names where people open it: the",
    "page's actions are then accepted from there, and its cookie is Secure under https; a",
    "public host beyond loopback requires the token too. A port another process holds is",
    "refused with exit code 3, naming --port.",
  ].join("\n"),
  options: {
    host: {
      type: "string",
      value: "<address>",
      description: `the address to listen on (default ${DEFAULT_DASHBOARD_HOST}; beyond loopback needs ${TOKEN_ENV})`,
    },
    port: {
      type: "string",
      value: "<N>",
      description: `the port to listen on (default ${DEFAULT_DASHBOARD_PORT}; 0: a free one)`,
    },
    ...PUBLIC_URL_OPTION,
    "read-only": {
      type: "boolean",
      description: "refuse the page's actions: cancel, replay, re-run, answer, pause and resume",
    },
    ...RUN_KEY_EXPIRY_OPTION,
    ...CONNECTION_OPTIONS,
  },
  async run(args, io) {
    const host = args.string("host") ?? DEFAULT_DASHBOARD_HOST;
    const port = args.integer("port", { min: 0, max: 65535 }, DEFAULT_DASHBOARD_PORT);
    const prefix = keyPrefix(args);
    const url = requireRedisUrl(args, io);
    const token = io.env[TOKEN_ENV];
    const signals = catchStopSignals();
    try {
      (await connectRedis(url)).disconnect();
      const dashboard = await startDashboard(
        {
          connection: url,
          prefix,
          host,
          port,
          readOnly: args.flag("read-only"),
          ...runKeyExpiryOption(args, io),
          ...(token ? { token } : {}),
          ...publicUrlOption(args, io),
          logger: stderrLogger(io, "warn", "errand-dashboard"),
        },
        "--port",
      );
      try {
        const proxied = dashboard.publicUrl !== dashboard.url;
        writeLines(io, [
          `errand dashboard: ${dashboard.url}${dashboard.readOnly ? " (read-only)" : ""}`,
          ...everyInterfaceLines(host),
          ...(proxied ? [`  served at ${dashboard.publicUrl}`] : []),
          `  REDIS_URL=${redactUrl(url)}${prefix === DEFAULT_KEY_PREFIX ? "" : `  (prefix ${prefix})`}`,
          ...(token
            ? [`  every request needs ${TOKEN_ENV}: open ${dashboard.publicUrl}/?token=<it> once`]
            : []),
          "  Ctrl-C to stop.",
        ]);
        await signals.first;
      } finally {
        await dashboard.close();
      }
    } finally {
      signals.release();
    }
    return EXIT.ok;
  },
};
