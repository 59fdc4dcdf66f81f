/**
 * What every route of one API process reads through, opened once: one
 * errand client (its settled waiter is the one every `waitMs` of the
 * process waits on), one follower for every stream of events and deltas
 * (two connections however many follow), and one connection of commands
 * for the registry and the probes. The number of Redis connections is fixed
 * by this file, not by the number of requests
 * (docs/architecture/http-api.md#one-waiter-per-process).
 */
import { createErrand, type Errand, openConnection, type RedisConnection } from "@errand/engine";
import {
  closeConnection,
  createRunLogFollower,
  type RunLogFollower,
  runEach,
} from "@errand/engine/ops";
import { createStreams, type Streams } from "./live/streams.js";
import type { ResolvedApiOptions } from "./options.js";

/** The shared resources of one API process. */
export interface ApiContext {
  readonly errand: Errand;
  /** Commands (auto-pipelined) for the registry and `/readyz`; never blocking. */
  readonly redis: RedisConnection;
  readonly follower: RunLogFollower;
  readonly streams: Streams;
  readonly options: ResolvedApiOptions;
}

/** Opens the resources of an API process. */
export function openApiContext(options: ResolvedApiOptions): ApiContext {
  const { connection, logger } = options;
  const errand = createErrand({
    connection,
    logger,
    ...(options.prefix === undefined ? {} : { prefix: options.prefix }),
    ...(options.dashboardUrl === undefined ? {} : { dashboardUrl: options.dashboardUrl }),
    ...(options.runKeyExpiry === undefined ? {} : { runKeyExpiry: options.runKeyExpiry }),
    ...(options.durability === undefined ? {} : { durability: options.durability }),
  });
  const onError = (error: unknown) => logger.error({ err: error }, "errand-api stream failed");
  return {
    errand,
    redis: openConnection(connection, { logger, name: "api commands", coalesceWrites: true }),
    follower: createRunLogFollower(
      { keys: errand.keys, connection, logger, name: "api run follower" },
      onError,
    ),
    streams: createStreams(options.maxStreams, onError),
    options,
  };
}

/** Ends every stream, then closes the follower, the client and the connection. */
export async function closeApiContext(context: ApiContext): Promise<void> {
  await runEach([
    () => context.streams.closeAll(),
    () => context.follower.close(),
    () => context.errand.close(),
    () => closeConnection(context.redis),
  ]);
}
