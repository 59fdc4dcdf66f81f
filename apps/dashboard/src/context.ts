/**
 * What every route of the dashboard reads through: an errand client (for
 * its store, reads, cancel and fire), a Redis connection of its own for the
 * registry, heartbeats and run indexes, and the deployment's keys.
 */
import {
  createErrand,
  type EngineKeys,
  type Errand,
  openConnection,
  type RedisConnection,
} from "@errand/engine";
import {
  CLIENT_COMMAND_RETRIES,
  clientPatience,
  closeConnection,
  type Patiently,
} from "@errand/engine/ops";
import type { ResolvedOptions } from "./options.js";

/** The dashboard's shared resources. */
export interface DashboardContext {
  readonly errand: Errand;
  /** Commands (auto-pipelined); never blocking. */
  readonly redis: RedisConnection;
  /** Runs a read of {@link redis} patiently, as the client's own calls are (`clientPatience`). */
  readonly patiently: Patiently;
  readonly keys: EngineKeys;
  readonly options: ResolvedOptions;
}

/** Opens the context's connections. */
export function openDashboardContext(options: ResolvedOptions): DashboardContext {
  const errand = createErrand({
    connection: options.connection,
    shards: options.shards,
    logger: options.logger,
    ...(options.prefix === undefined ? {} : { prefix: options.prefix }),
    ...(options.runKeyExpiry === undefined ? {} : { runKeyExpiry: options.runKeyExpiry }),
  });
  const redis = openConnection(options.connection, {
    logger: options.logger,
    name: "dashboard commands",
    coalesceWrites: true,
    commandRetries: CLIENT_COMMAND_RETRIES,
  });
  const patiently = clientPatience(options.logger, options.connection);
  return { errand, redis, patiently, keys: errand.keys, options };
}

/** Closes what {@link openDashboardContext} opened. */
export async function closeDashboardContext(context: DashboardContext): Promise<void> {
  await context.errand.close();
  await closeConnection(context.redis);
}
