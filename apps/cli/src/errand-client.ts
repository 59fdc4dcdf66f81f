/**
 * Opening the engine's client for one command: the Redis from `--redis` or
 * `REDIS_URL` (checked with a PING first, so an unreachable server fails
 * fast with exit code 3), the prefix from `--prefix`, closed when done.
 */
import { createErrand, createRunReads, type Errand, type RunReads } from "@errand/engine";
import type { ParsedArgs } from "./args.js";
import type { CliIO } from "./io.js";
import { connectRedis, keyPrefix, requireRedisUrl } from "./redis.js";

/** The engine's client: `errand` fires, cancels and reads logs; `reads` reads results. */
export interface EngineClient {
  errand: Errand;
  reads: RunReads;
}

/** Opens a client on `url` under `prefix`; close it with {@link closeClient}. */
export function openClient(url: string, prefix: string): EngineClient {
  return {
    errand: createErrand({ connection: url, prefix }),
    reads: createRunReads({ connection: url, prefix }),
  };
}

/** Closes both halves of a client. */
export async function closeClient(client: EngineClient): Promise<void> {
  await Promise.all([client.errand.close(), client.reads.close()]);
}

/** Runs `use` with a client, closing it afterwards however `use` ends. */
export async function withClient<T>(
  args: ParsedArgs,
  io: CliIO,
  use: (client: EngineClient) => Promise<T>,
): Promise<T> {
  const prefix = keyPrefix(args);
  const url = requireRedisUrl(args, io);
  (await connectRedis(url)).disconnect();
  const client = openClient(url, prefix);
  try {
    return await use(client);
  } finally {
    await closeClient(client);
  }
}
