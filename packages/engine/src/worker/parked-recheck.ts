/**
 * A parked run's job back for its re-check (docs/architecture/tool-results.md#fan-out-at-a-flat-cost-per-child)
 * while runs it waits for are still pending parks again from the log's
 * first and last events alone — its `run-queued` (the agent and version
 * this worker must run) and its `run-parked` (the runs it waits for, or
 * its children set: `waitForChildren`, asked of its children index the
 * same way, `parents/pending-children.ts`) — not
 * from the whole log folded: a parent with a million children is re-checked
 * every `parkRecheckMs` without reading every step it took. Anything else
 * (a last event other than a `run-parked` for runs — a cancel asked, an
 * answer, a waitpoint —, another agent or version, every awaited run
 * settled) is left to the full read of `process-run.ts`.
 *
 * Whether it still waits is asked of the newest awaited runs first, a slice
 * at a time, stopping at the first slice with a pending run
 * (`newestPendingOf`): the runs settle about in the order they were created,
 * so a re-check reads one slice, not every awaited run, and a parent's
 * re-checks cost in all what its children do, not their number times the
 * re-checks. The parked job goes back with every run of its `run-parked`:
 * the worker's waiter for it (`park.ts`), kept from the park before, knows
 * which of them are still pending.
 */
import type { ProcessOutcome } from "./process-outcome.js";
import type { RunProcessorContext } from "./run-processor-context.js";

/**
 * `parked` with the runs of its `run-parked` (or for its children) when
 * run `runId`'s log ends with one for runs of which some are still pending, and it is a run of
 * `agentName` at `version`; else `undefined`.
 */
export async function parkedAgainFromTail(
  context: Pick<RunProcessorContext, "store" | "newestPendingOf" | "newestPendingChildrenOf">,
  runId: string,
  agentName: string,
  version: string | undefined,
): Promise<ProcessOutcome | undefined> {
  const head = await context.store.readHead(runId);
  if (head === undefined || head.seq < 2) return undefined;
  const [[queued], [last]] = await Promise.all([
    context.store.readLog(runId, { count: 1 }),
    context.store.readLog(runId, { afterSeq: head.seq - 1 }),
  ]);
  if (queued?.type !== "run-queued" || last?.type !== "run-parked") return undefined;
  const { agent, agentVersion } = queued.data;
  if (agent !== agentName || (agentVersion !== undefined && agentVersion !== version)) {
    return undefined;
  }
  if (last.data.waitForChildren !== undefined) {
    const pending = await context.newestPendingChildrenOf(runId);
    return pending.length > 0 ? { kind: "parked", waitFor: [], waitForChildren: true } : undefined;
  }
  if (last.data.waitFor.length === 0) return undefined;
  const { waitFor } = last.data;
  const pending = await context.newestPendingOf(waitFor);
  return pending.length > 0 ? { kind: "parked", waitFor } : undefined;
}
