/**
 * What long-running commands share: waiting for a stop signal, and a Redis
 * for local use — the one given, or a private one started for the command
 * and removed when it ends.
 */
import type { ParsedArgs } from "./args.js";
import type { CliIO } from "./io.js";
import { connectRedis, givenRedisUrl } from "./redis.js";

/**
 * The signals that ask a process to stop: Ctrl-C, `kill`, and a closed
 * terminal (SIGHUP to its process group), each handled the same way.
 */
const STOP_SIGNALS: readonly NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];

/** Stop signals caught for a while: see {@link catchStopSignals}. */
export interface CaughtStopSignals {
  /** Resolves with the first stop signal, or `undefined` once released without one. */
  readonly first: Promise<NodeJS.Signals | undefined>;
  /** Stops catching: the next stop signal ends the process as usual. */
  release(): void;
}

/**
 * Catches the {@link STOP_SIGNALS} from now until `release()`: the first one
 * resolves `first`; later ones are ignored, so that a second Ctrl-C cannot
 * cut short the cleanup of what the command started (a private Redis).
 */
export function catchStopSignals(): CaughtStopSignals {
  let resolveFirst: (signal: NodeJS.Signals | undefined) => void = () => {};
  const first = new Promise<NodeJS.Signals | undefined>((resolve) => {
    resolveFirst = resolve;
  });
  const onSignal = (signal: NodeJS.Signals) => resolveFirst(signal);
  for (const name of STOP_SIGNALS) process.on(name, onSignal);
  return {
    first,
    release() {
      for (const name of STOP_SIGNALS) process.off(name, onSignal);
      resolveFirst(undefined);
    },
  };
}

/**
 * Resolves with the first stop signal the process receives from now on, then
 * stops catching them: a second signal ends the process as usual (a second
 * Ctrl-C forces a worker down).
 */
export async function nextStopSignal(): Promise<NodeJS.Signals | undefined> {
  const caught = catchStopSignals();
  const signal = await caught.first;
  caught.release();
  return signal;
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
 * (from PATH, else Docker) on a free loopback port in a temporary directory,
 * configured as production wants it (append-only file with `appendfsync everysec`,
 * `maxmemory-policy noeviction`), so that `errand doctor` passes against it.
 * The private server never outlives this process, even a killed one (see
 * `@errand/local-redis`'s `startRedis`). Throws `redis_unavailable` (exit 3),
 * saying how to get Redis, when neither works.
 */
export async function localRedis(args: ParsedArgs, io: CliIO): Promise<LocalRedis> {
  const given = givenRedisUrl(args, io);
  if (given !== undefined) {
    (await connectRedis(given)).disconnect();
    return { url: given, private: false, release: async () => {} };
  }
  const { startRedis } = await import("@errand/local-redis");
  const server = await startRedis({
    appendonly: true,
    appendfsync: "everysec",
    maxmemoryPolicy: "noeviction",
  });
  return { url: server.url, private: true, release: () => server.stop() };
}
