/**
 * The engine in this process, for the tests that run a whole errand: a
 * client, a worker and a collector (with its reaper unless told otherwise)
 * on one Redis and key prefix, started together and closed in order by
 * `stop` (the worker first, its runs given their grace, then the collector,
 * then the client). The one place the engine's tests build the three; a
 * test that runs its workers in processes of their own takes `engineTest`'s
 * fixture instead. Test-only: not exported.
 */
import { createErrand, type Errand } from "../client/client.js";
import {
  type Collector,
  type CollectorOptions,
  createCollector,
} from "../collector/create-collector.js";
import type { EngineOptions } from "../resources.js";
import { createWorker, type ErrandWorker, type WorkerOptions } from "../worker/create-worker.js";

/** The stack's options: those all three share, and each part's own. */
export interface ErrandStackOptions extends EngineOptions {
  /** The worker's options beside the shared ones (`agents` at least). */
  worker: Omit<WorkerOptions, keyof EngineOptions>;
  /** The collector's options beside the shared ones. Default: none (its reaper on). */
  collector?: Omit<CollectorOptions, keyof EngineOptions>;
}

/** A running stack. */
export interface ErrandStack {
  errand: Errand;
  worker: ErrandWorker;
  collector: Collector;
  /** Closes the worker (letting its runs go on for up to `graceMs`), the collector, then the client. */
  stop(options?: { graceMs?: number }): Promise<void>;
}

/** Starts a worker and a collector and opens a client, all on `options`' connection and prefix. */
export async function startErrandStack(options: ErrandStackOptions): Promise<ErrandStack> {
  const { worker: workerOptions, collector: collectorOptions = {}, ...shared } = options;
  const worker = await createWorker({ ...shared, ...workerOptions });
  const collector = createCollector({ ...shared, ...collectorOptions });
  await collector.start();
  const errand = createErrand(shared);
  return {
    errand,
    worker,
    collector,
    async stop({ graceMs } = {}) {
      await worker.close(graceMs === undefined ? {} : { graceMs });
      await collector.stop();
      await errand.close();
    },
  };
}
