/**
 * Opening the engine's client for one command: the Redis from `--redis` or
 * `REDIS_URL` (checked with a PING first, so an unreachable server fails
 * fast with exit code 3), the prefix from `--prefix`, the dashboard's URL
 * from `ERRAND_DASHBOARD_URL` (runs in its answers then carry `viewUrl`),
 * closed when done. Its log lines (a Redis connection lost and restored) go
 * to stderr, so stdout holds only the command's answer.
 */
import { createErrand, type Errand, type ErrandOptions } from "@errand/engine";
import type { ParsedArgs } from "./args.js";
import { dashboardUrlOption } from "./dashboard-url.js";
import type { CliIO } from "./io.js";
import { stderrLogger } from "./log.js";
import { connectRedis, keyPrefix, requireRedisUrl } from "./redis.js";

/**
 * The Redis and prefix a command was given, checked with a PING (an
 * unreachable server fails fast, exit code 3), and a logger to stderr.
 */
export async function checkedConnection(
  args: ParsedArgs,
  io: CliIO,
): Promise<Required<Pick<ErrandOptions, "prefix" | "logger">> & { connection: string }> {
  const prefix = keyPrefix(args);
  const url = requireRedisUrl(args, io);
  (await connectRedis(url)).disconnect();
  return { connection: url, prefix, logger: stderrLogger(io, "warn") };
}

/**
 * Runs `use` with a client, closing it afterwards however `use` ends;
 * `options` are the command's own engine options (`durability` for a fire).
 */
export async function withErrand<T>(
  args: ParsedArgs,
  io: CliIO,
  use: (errand: Errand) => Promise<T>,
  options: Pick<ErrandOptions, "durability"> = {},
): Promise<T> {
  const linked = dashboardUrlOption(io);
  const errand = createErrand({ ...(await checkedConnection(args, io)), ...linked, ...options });
  try {
    return await use(errand);
  } finally {
    await errand.close();
  }
}
