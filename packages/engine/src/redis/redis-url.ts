/**
 * The one way errand names a Redis in a string (`--redis`, `REDIS_URL`, the
 * `connection` option): a `redis://` or `rediss://` URL for one server, as
 * ioredis reads it, or a cluster URL listing some of a Redis Cluster's nodes:
 *
 *     redis+cluster://[<user>:<password>@]host1:port1,host2:port2[/]
 *     rediss+cluster://…   (the same, over TLS)
 *
 * Any reachable node is enough to find the others (ioredis asks it for the
 * slots), so the list only needs more than one node to survive one being down
 * at startup. Credentials are written as in a `redis://` URL (percent-encoded)
 * and apply to every node. A port left out is 6379. A cluster has only
 * database 0, so the path is empty, `/` or `/0`; there are no query options.
 */
import { ErrandError } from "@errand/core";
import { Cluster, type ClusterOptions, Redis, type RedisOptions } from "ioredis";

/** The scheme of a cluster URL without TLS. */
const CLUSTER_SCHEME = "redis+cluster:";

/** The scheme of a cluster URL over TLS. */
const TLS_CLUSTER_SCHEME = "rediss+cluster:";

/** The port of a node written without one. */
const DEFAULT_REDIS_PORT = 6379;

/** One node of a cluster URL. */
interface ClusterNode {
  host: string;
  port: number;
}

/** What a cluster URL names: its nodes, and what every connection to them uses. */
export interface ClusterTarget {
  nodes: ClusterNode[];
  /** User name, password and TLS, as ioredis options for each node. */
  nodeOptions: RedisOptions;
}

/** `scheme://userinfo@hosts/path?query#fragment`, each part optional after the scheme. */
const CLUSTER_URL = /^([a-z+]+:)\/\/(?:([^@/?#]*)@)?([^/?#]*)(\/[^?#]*)?(\?[^#]*)?(#.*)?$/i;

/** `host`, `host:port`, `[v6]` or `[v6]:port`. */
const NODE_ADDRESS = /^(?:\[([0-9a-f:.]+)\]|([^:[\]]+))(?::(\d+))?$/i;

/** True when `url` names a Redis Cluster (`redis+cluster://` or `rediss+cluster://`). */
export function isClusterUrl(url: string): boolean {
  const scheme = url.slice(0, url.indexOf("//")).toLowerCase();
  return scheme === CLUSTER_SCHEME || scheme === TLS_CLUSTER_SCHEME;
}

function invalidUrl(why: string): ErrandError {
  return new ErrandError(
    "invalid_spec",
    `invalid Redis Cluster URL: ${why}; write redis+cluster://[<user>:<password>@]host1:port1,host2:port2 (rediss+cluster:// for TLS)`,
  );
}

function decodePart(text: string, what: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw invalidUrl(`its ${what} is not percent-encoded correctly`);
  }
}

function parseNode(address: string): ClusterNode {
  const match = NODE_ADDRESS.exec(address);
  if (!match) throw invalidUrl(`${JSON.stringify(address)} is not host:port`);
  const host = match[1] ?? match[2]!;
  const port = match[3] === undefined ? DEFAULT_REDIS_PORT : Number(match[3]);
  if (port < 1 || port > 65535) throw invalidUrl(`port ${match[3]} of ${host} is not 1 to 65535`);
  return { host, port };
}

function parseCredentials(userinfo: string | undefined): RedisOptions {
  if (userinfo === undefined || userinfo === "") return {};
  const colon = userinfo.indexOf(":");
  const user = decodePart(colon === -1 ? userinfo : userinfo.slice(0, colon), "user name");
  const password = colon === -1 ? "" : decodePart(userinfo.slice(colon + 1), "password");
  return {
    ...(user === "" ? {} : { username: user }),
    ...(password === "" ? {} : { password }),
  };
}

/**
 * The nodes and node options of a cluster URL. Throws `invalid_spec`, saying
 * what is wrong and how the URL is written, for anything else: another
 * scheme, no node, a node that is not `host:port`, a port out of range, a
 * database other than 0, a query.
 */
export function parseClusterUrl(url: string): ClusterTarget {
  const match = CLUSTER_URL.exec(url.trim());
  const scheme = match?.[1]?.toLowerCase();
  if (!match || (scheme !== CLUSTER_SCHEME && scheme !== TLS_CLUSTER_SCHEME)) {
    throw invalidUrl("it does not start with redis+cluster:// or rediss+cluster://");
  }
  const [, , userinfo, hosts = "", path = "", query, fragment] = match;
  if (query !== undefined || fragment !== undefined) {
    throw invalidUrl("it takes no ?options or #fragment");
  }
  if (path !== "" && path !== "/" && path !== "/0") {
    throw invalidUrl(`a Redis Cluster has only database 0, not ${JSON.stringify(path.slice(1))}`);
  }
  const addresses = hosts.split(",").map((address) => address.trim());
  if (addresses.every((address) => address === "")) throw invalidUrl("it names no node");
  if (addresses.some((address) => address === "")) throw invalidUrl("it has an empty node");
  return {
    nodes: addresses.map(parseNode),
    nodeOptions: {
      ...parseCredentials(userinfo),
      ...(scheme === TLS_CLUSTER_SCHEME ? { tls: {} } : {}),
    },
  };
}

/** What {@link openRedisUrl} opens with, besides what the URL says. */
export interface RedisUrlOptions {
  /** Options of the single server's client, or of each node's client in a cluster. */
  redisOptions?: RedisOptions;
  /** Options of the ioredis `Cluster` for a cluster URL. */
  clusterOptions?: Omit<ClusterOptions, "redisOptions">;
}

/** The schemes ioredis reads a one-server URL in (`unix:` names a socket's path). */
const SERVER_SCHEMES = ["redis:", "rediss:", "unix:"];

/** The scheme of `url` (`http:`), lower case, or `undefined` when it has no `scheme://`. */
function schemeOf(url: string): string | undefined {
  return /^\s*([a-z][a-z0-9+.-]*:)\/\//i.exec(url)?.[1]?.toLowerCase();
}

/**
 * Throws `invalid_spec` for a URL of a scheme ioredis does not read
 * (`http://host:6379`): ioredis would take its host and port for a socket
 * path and fail with a bare `ENOENT`. Only the scheme is named, never the
 * rest, which may hold a password.
 */
function checkServerScheme(url: string): void {
  const scheme = schemeOf(url);
  if (scheme === undefined || SERVER_SCHEMES.includes(scheme)) return;
  throw new ErrandError(
    "invalid_spec",
    `invalid Redis URL: it starts with ${scheme}//; write redis://[<user>:<password>@]host:port (rediss:// for TLS, redis+cluster://host1:port1,host2:port2 for a Redis Cluster)`,
  );
}

/**
 * A new ioredis client for `url`: a `Cluster` for a cluster URL (see the
 * module), else a `Redis` for one server. Throws `invalid_spec` for a cluster
 * URL that is written wrong, or a URL of another scheme than `redis://`,
 * `rediss://` or a cluster's.
 */
export function openRedisUrl(url: string, options: RedisUrlOptions = {}): Redis | Cluster {
  if (!isClusterUrl(url)) {
    checkServerScheme(url);
    return new Redis(url, options.redisOptions ?? {});
  }
  const { nodes, nodeOptions } = parseClusterUrl(url);
  return new Cluster(nodes, {
    ...options.clusterOptions,
    redisOptions: { ...options.redisOptions, ...nodeOptions },
  });
}
