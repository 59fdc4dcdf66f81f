/**
 * Opening the engine's client for one command: the Redis from `--redis` or
 * `REDIS_URL` (checked with a PING first, so an unreachable server fails
 * fast with exit code 3), the prefix from `--prefix`, the dashboard's URL
 * from `ERRAND_DASHBOARD_URL` (runs in its answers then carry `viewUrl`),
 * closed when done. Its log lines (a Redis connection lost and restored) go
 * to stderr, so stdout holds only the command's answer.
 */
import { createErrand, type Errand } from "@errand/engine";
import type { ParsedArgs } from "./args.js";
import { dashboardUrlOption } from "./dashboard-url.js";
import type { CliIO } from "./io.js";
import { stderrLogger } from "./log.js";
import { connectRedis, keyPrefix, requireRedisUrl } from "./redis.js";

/** Runs `use` with a client, closing it afterwards however `use` ends. */
export async function withErrand<T>(
  args: ParsedArgs,
  io: CliIO,
  use: (errand: Errand) => Promise<T>,
): Promise<T> {
  const prefix = keyPrefix(args);
  const linked = dashboardUrlOption(io);
  const url = requireRedisUrl(args, io);
  (await connectRedis(url)).disconnect();
  const errand = createErrand({
    connection: url,
    prefix,
    logger: stderrLogger(io, "warn"),
    ...linked,
  });
  try {
    return await use(errand);
  } finally {
    await errand.close();
  }
}
