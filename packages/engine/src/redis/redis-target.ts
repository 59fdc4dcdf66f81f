/**
 * How errand names the Redis a connection talks to in what it prints: a URL
 * whose credentials are redacted, or the address of a client or options
 * given, so that an error saying Redis cannot be reached says which one
 * without leaking a password.
 */
import { REDACTED, redactSecretText } from "@errand/core";
import { Cluster, Redis, type RedisOptions } from "ioredis";
import type { ConnectionInput } from "./connection.js";

/**
 * `url` with every credential in it replaced by `[redacted]` (core's
 * `REDACTED`): the password of `redis://user:<password>@host` (the user name
 * and host are kept), and any secret in its query (`?password=…`,
 * `&token=…`), as core's `redactSecretText` finds them; text that is not a
 * URL goes through `redactSecretText` whole.
 */
export function redactRedisUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return redactSecretText(url);
  }
  const { search, hash } = parsed;
  parsed.search = "";
  parsed.hash = "";
  if (parsed.password !== "") parsed.password = REDACTED;
  const base = parsed.toString().replace(encodeURIComponent(REDACTED), REDACTED);
  return `${base}${redactSecretText(search)}${redactSecretText(hash)}`;
}

/** `host:port` of ioredis options (a Unix socket by its path); their password is never shown. */
function addressOf(options: RedisOptions): string {
  if (options.path !== undefined) return options.path;
  return `${options.host ?? "localhost"}:${options.port ?? 6379}`;
}

/**
 * The Redis `input` names, fit to print: a URL redacted by
 * {@link redactRedisUrl}, the `host:port` of options or of a client, or the
 * nodes a Cluster client knows.
 */
export function redisTarget(input: ConnectionInput): string {
  if (typeof input === "string") return redactRedisUrl(input);
  if (input instanceof Cluster) {
    const nodes = input.nodes("all").map((node) => addressOf(node.options));
    return nodes.length === 0 ? "a Redis Cluster" : `the Redis Cluster at ${nodes.join(",")}`;
  }
  if (input instanceof Redis) return addressOf(input.options);
  return addressOf(input);
}
