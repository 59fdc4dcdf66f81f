/**
 * A worker and a collector in this process, for `errand up` and the demo:
 * everything errand needs to run agents locally, stopped together.
 */
import { createCollector, createWorker } from "@errand/engine";
import type { Agent } from "@errand/runtime";
import type { Durability } from "@errand/store";
import type { CliIO } from "./io.js";
import { type CliLogLevel, stderrLogger } from "./log.js";
import { traceContentOption } from "./tracing/trace-content.js";

/** Options of {@link startLocalEngine}. */
export interface LocalEngineOptions {
  url: string;
  prefix: string;
  agents: readonly Agent[];
  concurrency: number;
  /** Where log lines go, and from which level (`ERRAND_LOG_LEVEL` wins). */
  log: { io: CliIO; level: CliLogLevel };
  /** The dashboard the worker links the parent tools' children to (`viewUrl`). Default none. */
  dashboardUrl?: string;
  /** How the worker's and the collector's settling appends and fires are acknowledged. Default the engine's. */
  durability?: Durability;
}

/** A running worker and collector. */
export interface LocalEngine {
  /** Closes the worker (letting active runs finish for `graceMs`) and the collector. */
  stop(graceMs?: number): Promise<void>;
}

/** Starts a collector, then a worker; if the worker cannot start, the collector is stopped. */
export async function startLocalEngine(options: LocalEngineOptions): Promise<LocalEngine> {
  const logger = stderrLogger(options.log.io, options.log.level);
  const connection = options.url;
  const durable = options.durability === undefined ? {} : { durability: options.durability };
  const collector = createCollector({ connection, prefix: options.prefix, logger, ...durable });
  await collector.start();
  try {
    const worker = await createWorker({
      connection,
      prefix: options.prefix,
      agents: options.agents,
      concurrency: options.concurrency,
      logger,
      ...(options.dashboardUrl === undefined ? {} : { dashboardUrl: options.dashboardUrl }),
      ...durable,
      ...traceContentOption(options.log.io.env),
    });
    return {
      async stop(graceMs = 0) {
        await worker.close({ graceMs });
        await collector.stop();
      },
    };
  } catch (error) {
    await collector.stop();
    throw error;
  }
}
