/**
 * What long-running commands share: waiting for SIGINT/SIGTERM, and a Redis
 * for local use — the one given, or a private one started for the command
 * (DESIGN §9) and removed when it ends.
 */
import type { ParsedArgs } from "./args.js";
import type { CliIO } from "./io.js";
import { connectRedis, givenRedisUrl } from "./redis.js";

/** The signals that ask a process to stop. */
export const STOP_SIGNALS: readonly NodeJS.Signals[] = ["SIGINT", "SIGTERM"];

/**
 * Resolves with the first stop signal the process receives (from the moment
 * of the call), then stops listening. `abort` ends the wait early with `undefined`.
 */
export function nextStopSignal(abort?: AbortSignal): Promise<NodeJS.Signals | undefined> {
  return new Promise((resolve) => {
    const done = (signal: NodeJS.Signals | undefined) => {
      for (const name of STOP_SIGNALS) process.off(name, onSignal);
      abort?.removeEventListener("abort", onAbort);
      resolve(signal);
    };
    const onSignal = (signal: NodeJS.Signals) => done(signal);
    const onAbort = () => done(undefined);
    for (const name of STOP_SIGNALS) process.on(name, onSignal);
    abort?.addEventListener("abort", onAbort, { once: true });
  });
}

/** A Redis for a local command: its URL, whether we started it, and how to let it go. */
export interface LocalRedis {
  url: string;
  /** True when the command started this Redis (and so removes it). */
  private: boolean;
  /** Stops and removes a Redis the command started; does nothing for a given one. */
  release(): Promise<void>;
}

/**
 * The Redis given by `--redis`/`REDIS_URL` (once it answers), else a private `redis-server`
 * (from PATH, else Docker) on a free loopback port in a temporary directory.
 * Throws `redis_unavailable` (exit 3), saying how to get Redis, when neither works.
 */
export async function localRedis(args: ParsedArgs, io: CliIO): Promise<LocalRedis> {
  const given = givenRedisUrl(args, io);
  if (given !== undefined) {
    (await connectRedis(given)).disconnect();
    return { url: given, private: false, release: async () => {} };
  }
  const { startRedis } = await import("@errand/testing");
  const server = await startRedis({ maxmemoryPolicy: "noeviction" });
  return { url: server.url, private: true, release: () => server.stop() };
}
