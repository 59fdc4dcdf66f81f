/**
 * A process that owns a local Redis, for the tests of what happens to the
 * server when its owner goes away: it starts one through `startRedis`, prints
 * `{ dir, pid, port }` of it as one JSON line, then ends as it is told.
 * Test-only: not exported.
 */
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";

/** The package's folder: the owner runs there, so that it resolves the package's dependencies. */
export const PACKAGE_DIR = dirname(dirname(dirname(fileURLToPath(import.meta.url))));

/** Where the owner's server lives, as it reported it. */
export interface OwnedRedis {
  dir: string;
  pid: number;
  port: number;
}

/**
 * The arguments of `node` that run an owner which, once it reported its
 * server, runs `ending` (e.g. `process.exit(0)`, or a timer that keeps it alive).
 */
export function redisOwnerArgs(ending: string): string[] {
  const startRedis = JSON.stringify(new URL("../start-redis.ts", import.meta.url).href);
  const script = `
    const { startRedis } = await import(${startRedis});
    const { Redis } = await import("ioredis");
    const server = await startRedis();
    const redis = new Redis(server.url);
    const [, dir] = await redis.config("GET", "dir");
    const pid = Number(/process_id:(\\d+)/.exec(await redis.info("server"))[1]);
    redis.disconnect();
    console.log(JSON.stringify({ dir, pid, port: server.port }));
    ${ending};
  `;
  return ["--conditions=@errand/source", "--import", "tsx", "--input-type=module", "-e", script];
}
