/**
 * A quietly opened run (docs/architecture/collector.md#quiet-openings): its
 * opening append wrote no shard entry, and the first entry after it carries
 * its `run-queued` as the run's head summarises it. The collector starts the
 * run's projection from that summary, as if it had folded the `run-queued`.
 */
import { type EventDataOf, initialRunState, type RunState } from "@errand/core";
import type { QueuedSummary } from "@errand/store";

/**
 * The state the fold of a run's `run-queued` alone gives, as far as its
 * result goes: the summary's fields. What the head does not hold (the input,
 * the metadata, the step limit) the result never reads; it is left empty
 * (`maxSteps` at its highest), and an empty schema stands for the run's,
 * whose presence is all the fold asks. A quiet opening has neither a budget
 * nor a deadline, so the state has none.
 */
export function queuedState(runId: string, summary: QueuedSummary): RunState {
  const { agent, rootRunId, parentRunId, tenant, depth, hasSchema, createdAt } = summary;
  const queued: EventDataOf<"run-queued"> = {
    agent,
    input: undefined,
    rootRunId,
    depth,
    limits: { maxSteps: Number.MAX_SAFE_INTEGER },
    metadata: {},
  };
  if (hasSchema) queued.outputSchema = {};
  if (parentRunId !== undefined) queued.parentRunId = parentRunId;
  if (tenant !== undefined) queued.tenant = tenant;
  // The initial state itself, its fields set: one object, not a copy of it.
  const state = initialRunState(runId);
  state.seq = 1;
  state.status = "queued";
  state.queued = queued;
  state.createdAt = createdAt;
  return state;
}
