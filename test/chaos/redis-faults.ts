/**
 * What the Redis faults share. They wait for each other: one server (or one
 * cluster) under one fault at a time, so that a restart does not end a
 * shortage early, nor two restarts strike one port. Each one that begins is
 * numbered, so that a rolling deploy can strike during the n-th.
 */
import { ErrandError } from "@errand/core";
import type { RedisServer } from "@errand/testing";
import type { Cluster, Redis } from "ioredis";
import type { FaultContext } from "./fault-context.js";

/** The Redis fault under way (settled, whatever its outcome). */
let redisFaults: Promise<unknown> = Promise.resolve();

/** How many Redis faults began, and who waits for which to begin. */
let begun = 0;
const waitingFor = new Map<number, (() => void)[]>();

/** Runs `fault` on Redis after any Redis fault already under way. */
export function afterRedisFaults<T>(fault: () => Promise<T>): Promise<T> {
  const next = redisFaults.then(() => {
    const index = begun;
    begun += 1;
    for (const wake of waitingFor.get(index) ?? []) wake();
    waitingFor.delete(index);
    return fault();
  });
  redisFaults = next.catch(() => undefined);
  return next;
}

/** Resolves once the `index`-th Redis fault (0 first) began. */
export function redisFaultBegun(index: number): Promise<void> {
  if (index < begun) return Promise.resolve();
  return new Promise((resolve) => {
    waitingFor.set(index, [...(waitingFor.get(index) ?? []), resolve]);
  });
}

/** The one `redis-server` of the chaos cluster; throws on a Redis Cluster, whose faults are failovers. */
export function singleServer(context: FaultContext): RedisServer {
  const { redis } = context.cluster;
  if (redis.kind === "server") return redis.server;
  throw new ErrandError(
    "invalid_spec",
    "on a Redis Cluster, Redis faults are --failovers (and --rolling-deploys during them)",
  );
}

/** The value of `field` in an `INFO` reply. */
export async function infoField(
  admin: Redis | Cluster,
  section: string,
  field: string,
): Promise<string> {
  const value = new RegExp(`^${field}:(.*)$`, "m").exec(await admin.info(section))?.[1];
  if (value === undefined) {
    throw new ErrandError("internal", `INFO ${section} gave no ${field}`);
  }
  return value.trim();
}

/** Redis's configuration value of `name`. */
export async function configValue(admin: Redis | Cluster, name: string): Promise<string> {
  const [, value = ""] = (await admin.config("GET", name)) as string[];
  return value;
}
