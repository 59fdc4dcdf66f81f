/**
 * What processing a run works with: the worker's resources and parts, shared
 * by every job (`process-run.ts`) and every attempt (`run-attempt.ts`).
 */
import type { LiveChannel, RetryPolicy } from "@errand/runtime";
import type { CollectRuns } from "../evaluations/recorded-children.js";
import type { RunAdmission } from "../flow-control/run-admission.js";
import type { EngineResources } from "../resources.js";
import type { ResolvedAgent } from "./agent-models.js";
import type { AttemptSinkContext } from "./attempt-sink.js";
import type { CancelListener } from "./cancel-listener.js";

/**
 * What processing a run needs: the worker's resources, shared by every job,
 * and its own parts, those its attempts' sinks are built from among them.
 */
export interface RunProcessorContext extends EngineResources, AttemptSinkContext {
  /** The worker's agents with their models, by name. */
  agents: ReadonlyMap<string, ResolvedAgent>;
  workerId: string;
  /** The queue the worker takes its jobs from: the destination its `process` spans name. */
  queue: string;
  cancels: CancelListener;
  /** Passed to tools as `ctx.services`. */
  services?: Readonly<Record<string, unknown>>;
  /** How failed model requests are retried. */
  retry?: Partial<RetryPolicy>;
  /** Log large call arguments as blobs (see `RunStepsOptions.cutLargeCallArgs`). */
  cutLargeCallArgs?: boolean;
  /** Reads the outcomes of runs, as the client's `collect`: what a case of an evaluation collects its recorded children with. */
  collectRuns: CollectRuns;
  /** The runs of `runIds` that have no stored result yet: what a parked run still waits for. */
  pendingOf(runIds: readonly string[]): Promise<string[]>;
  /**
   * The pending runs of the newest slice of `runIds` that holds any, `[]`
   * when none is pending: a parked run's re-check, at a cost that does not
   * grow with `runIds` while they settle in creation order (the store's `newestPendingRunIds`).
   */
  newestPendingOf(runIds: readonly string[]): Promise<string[]>;
  /**
   * The pending children of the newest slice of run `parentRunId`'s
   * children that holds any, `[]` when none is pending: what a run parked
   * for its children set still waits for (`parents/pending-children.ts`).
   */
  newestPendingChildrenOf(parentRunId: string): Promise<string[]>;
  /** Where streaming models publish their deltas (docs/architecture/redis-layout.md#the-live-channel-streaming). */
  live?: LiveChannel;
  /** The fleet's concurrency gate: an open run starts only once admitted (docs/architecture/flow-control.md#flow-control). */
  admission?: RunAdmission;
}
