/**
 * The dashboard's options, checked once: where it listens, where people
 * open it (behind a reverse proxy), whether it asks for a token, and whether
 * it refuses actions. Bound to loopback by default; listening anywhere else,
 * or being served beyond loopback by a proxy, requires a token.
 */
import { isIP } from "node:net";
import { ErrandError } from "@errand/core";
import { wholeNumberOption } from "@errand/core/ops";
import type { ConnectionInput, Logger, RunKeyExpiry } from "@errand/engine";
import { createLogger } from "@errand/engine/ops";
import { DEFAULT_SHARDS } from "@errand/store/ops";

/** The port the dashboard listens on when not told. */
export const DEFAULT_DASHBOARD_PORT = 4040;

/** The address the dashboard listens on when not told: loopback only. */
export const DEFAULT_DASHBOARD_HOST = "127.0.0.1";

/** The environment variable a token is read from when `token` is not given. */
export const TOKEN_ENV = "ERRAND_DASHBOARD_TOKEN";

/** The environment variable the public URL is read from when `publicUrl` is not given. */
export const PUBLIC_URL_ENV = "ERRAND_DASHBOARD_PUBLIC_URL";

/** The live streams (overview and runs) one dashboard serves at once when not told. */
export const DEFAULT_MAX_LIVE_CLIENTS = 500;

/** The searches one dashboard runs at once when not told. */
export const DEFAULT_MAX_CONCURRENT_SEARCHES = 4;

/** The shortest token accepted. */
const MIN_TOKEN_LENGTH = 16;

/** The fewest different characters a token must hold: `aaaa…` or `abab…` is no secret. */
const MIN_TOKEN_DISTINCT_CHARS = 8;

/** What a token must be, as every message that asks for one says it. */
export const TOKEN_RULE = `at least ${MIN_TOKEN_LENGTH} characters, no whitespace, at least ${MIN_TOKEN_DISTINCT_CHARS} different characters (such as the output of openssl rand -hex 32)`;

/**
 * What is wrong with `token` as a dashboard token, or undefined when it
 * follows {@link TOKEN_RULE}: long enough, no whitespace (a token pasted with
 * a space or a newline is a mistake), and not a few characters repeated
 * (`aaaaaaaaaaaaaaaa` passes a length check but no guesser's first try).
 */
export function tokenProblem(token: string): string | undefined {
  if (token.length < MIN_TOKEN_LENGTH) return `it has ${token.length} characters`;
  if (/\s/.test(token)) return "it holds whitespace";
  const distinct = new Set(token).size;
  if (distinct < MIN_TOKEN_DISTINCT_CHARS) return `it has only ${distinct} different characters`;
  return undefined;
}

/**
 * Where the dashboard reports what went wrong while answering, and its
 * Redis connections' state changes: errand's `Logger` (a pino logger is one).
 */
export type DashboardLogger = Logger;

/** Options of `createDashboard`. */
export interface DashboardOptions {
  /** Redis: a URL, ioredis options, or a client (duplicated, never used as is). */
  connection: ConnectionInput;
  /** The key prefix of the deployment. Default `errand`. */
  prefix?: string;
  /** The shards the run indexes are read on (the clients' and collectors' value). Default 16. */
  shards?: number;
  /**
   * The address to listen on. Default `127.0.0.1`. Any address beyond
   * loopback (`0.0.0.0`, a LAN address, …) requires a `token`.
   */
  host?: string;
  /** The port to listen on; 0 picks a free one (see `url`). Default 4040. */
  port?: number;
  /**
   * The token every request must carry (`Authorization: Bearer <token>`, or
   * the cookie set by opening `/?token=<token>`), following {@link TOKEN_RULE}.
   * Default `ERRAND_DASHBOARD_TOKEN` from the environment; without either,
   * no token is asked (loopback only).
   */
  token?: string;
  /**
   * The URL people open the dashboard at when a reverse proxy serves it —
   * e.g. `https://errand.example.com` from a proxy that terminates TLS and
   * forwards to the dashboard on 127.0.0.1 — at the root of its origin (the
   * page's paths start with `/`). Then actions from that origin are accepted,
   * requests naming its host are answered on a loopback binding, and under
   * `https:` the session cookie is `Secure`. A public host beyond loopback
   * requires a `token`. Default `ERRAND_DASHBOARD_PUBLIC_URL` from the
   * environment; without either, the dashboard is opened where it listens.
   */
  publicUrl?: string;
  /**
   * The live streams (`/api/live` and runs' `/live`) served at once; one
   * more is refused with 503 `busy` and `Retry-After`. Default 500.
   */
  maxLiveClients?: number;
  /**
   * The searches (`/api/runs?q=`) run at once; one more is refused with 503
   * `busy` and `Retry-After`. Default 4.
   */
  maxConcurrentSearches?: number;
  /** Refuse the actions (cancel, replay) with 403 `read_only`. Default false. */
  readOnly?: boolean;
  /** The clock of the overview's time windows. Default the system clock. */
  now?: () => Date;
  /**
   * Which of a run's optional keys (blobs, children) an append settling a run
   * (a cancel) gives their expiry: the engine's `runKeyExpiry`. Give `"all"`
   * while processes older than the flags run
   * (docs/architecture/redis-layout.md#upgrading-to-flagged-blobs-and-children).
   */
  runKeyExpiry?: RunKeyExpiry;
  /** Default: the engine's pino logger (`ERRAND_LOG_LEVEL`), named `errand-dashboard`. */
  logger?: DashboardLogger;
}

/** The options with their defaults applied. */
export interface ResolvedOptions {
  connection: ConnectionInput;
  prefix: string | undefined;
  shards: number;
  host: string;
  port: number;
  token: string | undefined;
  /** The public URL's origin (`https://errand.example.com`), when one is set. */
  publicUrl: URL | undefined;
  maxLiveClients: number;
  maxConcurrentSearches: number;
  readOnly: boolean;
  runKeyExpiry: RunKeyExpiry | undefined;
  /** Whether `host` is a loopback address. */
  loopback: boolean;
  now: () => Date;
  logger: DashboardLogger;
}

function invalid(message: string): never {
  throw new ErrandError("invalid_spec", message);
}

/** True for `localhost`, `127.0.0.0/8` and `::1` (also as `[::1]`). */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  if (bare === "localhost") return true;
  if (isIP(bare) === 4) return bare.startsWith("127.");
  return bare === "::1" || bare === "::ffff:127.0.0.1";
}

/** `value` as a public URL: absolute http(s), at the root of its origin, without credentials. */
function parsePublicUrl(value: string): URL {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:")) {
    invalid(`the public URL must be an absolute http(s) URL, not ${JSON.stringify(value)}`);
  }
  if (url.pathname !== "/" || url.search !== "" || url.hash !== "") {
    invalid(
      `the public URL must be the root of an origin such as https://errand.example.com (the page is served at /), not ${JSON.stringify(value)}`,
    );
  }
  if (url.username !== "" || url.password !== "") {
    invalid("the public URL must not carry a user name or password");
  }
  return url;
}

/** Checks `options` and fills in the defaults. Throws `invalid_spec` for options that cannot work. */
export function resolveOptions(
  options: DashboardOptions,
  env: NodeJS.ProcessEnv = process.env,
): ResolvedOptions {
  const host = options.host ?? DEFAULT_DASHBOARD_HOST;
  const port = options.port ?? DEFAULT_DASHBOARD_PORT;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    invalid(`port must be a whole number from 0 to 65535, not ${port}`);
  }
  const shards = wholeNumberOption("shards", options.shards, DEFAULT_SHARDS, 1);
  const maxLiveClients = wholeNumberOption(
    "maxLiveClients",
    options.maxLiveClients,
    DEFAULT_MAX_LIVE_CLIENTS,
    1,
  );
  const maxConcurrentSearches = wholeNumberOption(
    "maxConcurrentSearches",
    options.maxConcurrentSearches,
    DEFAULT_MAX_CONCURRENT_SEARCHES,
    1,
  );
  const given = options.token ?? env[TOKEN_ENV];
  const token = given === undefined || given === "" ? undefined : given;
  const problem = token === undefined ? undefined : tokenProblem(token);
  if (problem !== undefined) {
    invalid(`the dashboard token is refused: ${problem}; a token needs ${TOKEN_RULE}`);
  }
  const loopback = isLoopbackHost(host);
  if (!loopback && token === undefined) {
    invalid(
      `the dashboard listens on ${host}, beyond loopback: set a token (${TOKEN_ENV}, ${TOKEN_RULE}) or listen on 127.0.0.1`,
    );
  }
  const publicText = options.publicUrl ?? env[PUBLIC_URL_ENV];
  const publicUrl =
    publicText === undefined || publicText === "" ? undefined : parsePublicUrl(publicText);
  if (publicUrl !== undefined && !isLoopbackHost(publicUrl.hostname) && token === undefined) {
    invalid(
      `the dashboard is served at ${publicUrl.origin}, beyond loopback: set a token (${TOKEN_ENV}, ${TOKEN_RULE})`,
    );
  }
  return {
    connection: options.connection,
    prefix: options.prefix,
    shards,
    host,
    port,
    token,
    publicUrl,
    maxLiveClients,
    maxConcurrentSearches,
    readOnly: options.readOnly ?? false,
    runKeyExpiry: options.runKeyExpiry,
    loopback,
    now: options.now ?? (() => new Date()),
    logger: options.logger ?? createLogger({ name: "errand-dashboard" }),
  };
}
