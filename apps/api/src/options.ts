/**
 * What an API server is given, and its defaults: where it listens, which
 * Redis and prefix it serves, how many streams and waits it holds at once,
 * how large a request may be.
 */
import { ErrandError } from "@errand/core";
import type { ConnectionInput, Durability, Logger, RunKeyExpiry } from "@errand/engine";
import { createLogger } from "@errand/engine/ops";

/** The address the API listens on unless told: loopback. */
export const DEFAULT_API_HOST = "127.0.0.1";

/** The port the API listens on unless told. */
export const DEFAULT_API_PORT = 4050;

/** The largest request body, in bytes, unless told: 1 MiB (a batch of runs with their inputs). */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** The deepest nesting of a request body's JSON: an input may nest 100 deep, inside a batch. */
export const MAX_BODY_NESTING = 110;

/** The most server-sent-event streams open at once, unless told. */
export const DEFAULT_MAX_STREAMS = 500;

/** Options of {@link createHttpApi}. */
export interface HttpApiOptions {
  /** The deployment's Redis: a URL, ioredis options, or a client (duplicated, never used itself). */
  connection: ConnectionInput;
  /** The deployment's key prefix. Default the engine's. */
  prefix?: string;
  /** Default {@link DEFAULT_API_HOST}. */
  host?: string;
  /** Default {@link DEFAULT_API_PORT}; 0 picks a free port. */
  port?: number;
  /** Default {@link DEFAULT_MAX_BODY_BYTES}. */
  maxBodyBytes?: number;
  /** Default {@link DEFAULT_MAX_STREAMS}; one more stream is answered 503 `busy`. */
  maxStreams?: number;
  /** The dashboard's URL: every run answered carries `viewUrl`, its page there. */
  dashboardUrl?: string;
  /**
   * Ask every request for a key, on loopback too. Default false: on a
   * loopback listener a request without a key is the operator's own
   * (`LOOPBACK_GRANT`); beyond loopback every request needs one.
   */
  keysOnLoopback?: boolean;
  /**
   * Which of a run's optional keys (blobs, children) an append settling a run
   * (a cancel) gives their expiry: the engine's `runKeyExpiry`. Give `"all"`
   * while processes older than the flags run
   * (docs/architecture/redis-layout.md#upgrading-to-flagged-blobs-and-children).
   */
  runKeyExpiry?: RunKeyExpiry;
  /**
   * When a fire is answered: once Redis has its runs (`"acknowledged"`, the
   * engine's default) or once a replica has them too (`"replicated"`). A run
   * no replica confirmed in time is answered 503 with its `runId`: sending
   * the request again with the same `Idempotency-Key` answers that run
   * (docs/architecture/redis-layout.md#a-replicated-fire).
   */
  durability?: Durability;
  /** Default the engine's pino logger, named `errand-api`. */
  logger?: Logger;
}

/** {@link HttpApiOptions} with every default filled in. */
export interface ResolvedApiOptions {
  connection: ConnectionInput;
  prefix: string | undefined;
  host: string;
  port: number;
  maxBodyBytes: number;
  maxStreams: number;
  dashboardUrl: string | undefined;
  keysOnLoopback: boolean;
  runKeyExpiry: RunKeyExpiry | undefined;
  durability: Durability | undefined;
  logger: Logger;
}

function wholeNumber(name: string, value: number | undefined, fallback: number, min: number) {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < min) {
    throw new ErrandError("invalid_spec", `${name} must be a whole number ≥ ${min}, not ${value}`);
  }
  return value;
}

/** The options with their defaults. Throws `invalid_spec` for a bad number. */
export function resolveApiOptions(options: HttpApiOptions): ResolvedApiOptions {
  return {
    connection: options.connection,
    prefix: options.prefix,
    host: options.host ?? DEFAULT_API_HOST,
    port: wholeNumber("port", options.port, DEFAULT_API_PORT, 0),
    maxBodyBytes: wholeNumber("maxBodyBytes", options.maxBodyBytes, DEFAULT_MAX_BODY_BYTES, 1024),
    maxStreams: wholeNumber("maxStreams", options.maxStreams, DEFAULT_MAX_STREAMS, 1),
    dashboardUrl: options.dashboardUrl,
    keysOnLoopback: options.keysOnLoopback ?? false,
    runKeyExpiry: options.runKeyExpiry,
    durability: options.durability,
    logger: options.logger ?? createLogger({ name: "errand-api" }),
  };
}
