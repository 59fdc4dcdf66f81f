/**
 * A parked run's job back for its re-check (docs/architecture/tool-results.md#fan-out-at-a-flat-cost-per-child)
 * while runs it waits for are still pending parks again from the log's
 * first and last events alone — its `run-queued` (the agent and version
 * this worker must run) and its `run-parked` (the runs it waits for) — not
 * from the whole log folded: a parent with a million children is re-checked
 * every `parkRecheckMs` without reading every step it took. Anything else
 * (a last event other than a `run-parked` for runs — a cancel asked, an
 * answer, a waitpoint —, another agent or version, every awaited run
 * settled) is left to the full read of `process-run.ts`.
 */
import type { ProcessOutcome } from "./process-outcome.js";
import type { RunProcessorContext } from "./run-processor-context.js";

/**
 * `parked` with the runs still pending when run `runId`'s log ends with a
 * `run-parked` for runs of which some are, and it is a run of `agentName` at
 * `version`; else `undefined`.
 */
export async function parkedAgainFromTail(
  context: Pick<RunProcessorContext, "store" | "pendingOf">,
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
  if (last.data.waitFor.length === 0) return undefined;
  const pending = await context.pendingOf(last.data.waitFor);
  return pending.length > 0 ? { kind: "parked", waitFor: pending } : undefined;
}
