/**
 * Opening the engine's client for one command: the Redis from `--redis` or
 * `REDIS_URL` (checked with a PING first, so an unreachable server fails
 * fast with exit code 3), the prefix from `--prefix`, closed when done.
 */
import { createErrand, type Errand } from "@errand/engine";
import type { ParsedArgs } from "./args.js";
import type { CliIO } from "./io.js";
import { connectRedis, keyPrefix, requireRedisUrl } from "./redis.js";

/** Runs `use` with a client, closing it afterwards however `use` ends. */
export async function withErrand<T>(
  args: ParsedArgs,
  io: CliIO,
  use: (errand: Errand) => Promise<T>,
): Promise<T> {
  const prefix = keyPrefix(args);
  const url = requireRedisUrl(args, io);
  (await connectRedis(url)).disconnect();
  const errand = createErrand({ connection: url, prefix });
  try {
    return await use(errand);
  } finally {
    await errand.close();
  }
}
