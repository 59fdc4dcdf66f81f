/**
 * `cancel`: stops a run wherever it is. A `cancel-requested` event goes into
 * its log and its runId is published on the cancel channel, so the worker
 * holding it aborts the in-flight model request and writes `cancelled`. A run
 * still waiting in its queue is removed from it and settled `cancelled` here.
 * With `cascade`, every descendant (children, their children, …) is cancelled too.
 */
import { ErrandError, isErrandError } from "@errand/core";
import { isRunId, runNotFound } from "@errand/core/ops";
import type { HeadStatus } from "@errand/store";
import { removeUnheldJob } from "../queues/run-jobs.js";
import type { RunQueues } from "../queues/run-queues.js";
import type { EngineResources } from "../resources.js";
import { settleCancelled } from "./settle-cancelled.js";

/** Options of `cancel`. */
export interface CancelOptions {
  /** Why, kept in `cancel-requested` and `cancelled`. */
  reason?: string;
  /** Cancel every descendant too. Default false. */
  cascade?: boolean;
  /** Who asks, kept in `cancel-requested`. Default `client`. */
  by?: string;
}

/** What became of one run a cancel reached. */
export interface CancelResult {
  runId: string;
  /**
   * Where the run stands after the call: `cancelled` when it was settled here
   * (it was not running), its settled status when it had already settled,
   * else its current status (`queued`/`running`): the worker that holds it
   * writes `cancelled` as soon as it hears the cancel.
   */
  status: HeadStatus;
  /** False when the run had already settled: nothing was written for it. */
  requested: boolean;
  /** With `cascade`: every descendant reached, listed parents before their children. */
  descendants?: CancelResult[];
}

/** What cancelling needs: the resources and the queues a waiting run's job is removed from. */
export interface CancelContext extends EngineResources {
  queues: RunQueues;
}

async function requestCancel(
  context: CancelContext,
  runId: string,
  reason: string | undefined,
  by: string,
): Promise<boolean> {
  const data = { ...(reason === undefined ? {} : { reason }), by };
  try {
    await context.store.appendEvents(runId, "any", [
      { type: "cancel-requested", at: context.now().toISOString(), data },
    ]);
    return true;
  } catch (error) {
    if (isErrandError(error, "run_settled")) return false;
    if (isErrandError(error, "not_found")) throw runNotFound(runId);
    throw error;
  }
}

/** Settles the run here when no worker holds its job; otherwise leaves it to the worker. */
async function settleUnlessHeld(
  context: CancelContext,
  runId: string,
  agent: string,
): Promise<HeadStatus | undefined> {
  const lookup = { redis: context.redis, keys: context.keys, ofRun: context.queues.ofRun };
  if ((await removeUnheldJob(lookup, runId, agent)) === "held") return undefined;
  return (await settleCancelled(context.store, runId, context.now)).status as HeadStatus;
}

async function cancelOne(
  context: CancelContext,
  runId: string,
  reason: string | undefined,
  by: string,
): Promise<CancelResult> {
  const head = await context.store.readHead(runId);
  if (head === undefined) throw runNotFound(runId);
  if (head.settledAt !== undefined) return { runId, status: head.status, requested: false };
  if (!(await requestCancel(context, runId, reason, by))) {
    const settled = await context.store.readHead(runId);
    return { runId, status: settled?.status ?? head.status, requested: false };
  }
  await context.redis.publish(context.keys.cancelChannel, runId);
  const status = await settleUnlessHeld(context, runId, head.agent);
  return { runId, status: status ?? head.status, requested: true };
}

/** The descendants of `runId`, parents before their children, each once. */
async function descendantsOf(context: CancelContext, runId: string): Promise<string[]> {
  const seen = new Set<string>([runId]);
  const found: string[] = [];
  let level = [runId];
  while (level.length > 0) {
    const children = await Promise.all(
      level.map((parent) => context.redis.zrange(context.keys.children(parent), 0, -1)),
    );
    level = children.flat().filter((child) => !seen.has(child));
    for (const child of level) seen.add(child);
    found.push(...level);
  }
  return found;
}

/**
 * Cancels run `runId` (and, with `cascade`, its descendants). A cascade
 * cancels the deepest descendants first and the run itself last, so that no
 * descendant still waiting in a queue takes a worker slot its ancestors free.
 * A run that had already settled is left as it is and reported with its
 * status and `requested: false`: cancelling is idempotent, never an error. A
 * descendant that no longer exists (expired) is skipped. Throws
 * `invalid_spec` for a malformed runId and `not_found` for an unknown run.
 */
export async function cancel(
  context: CancelContext,
  runId: string,
  options: CancelOptions = {},
): Promise<CancelResult> {
  if (!isRunId(runId)) {
    throw new ErrandError("invalid_spec", `not a run id: ${JSON.stringify(runId)}`);
  }
  const by = options.by ?? "client";
  if (!options.cascade) return cancelOne(context, runId, options.reason, by);
  if ((await context.store.readHead(runId)) === undefined) throw runNotFound(runId);
  const descendants = await descendantsOf(context, runId);
  const reached = new Map<string, CancelResult>();
  const cascadeBy = `${by} (cascade from ${runId})`;
  for (const descendant of [...descendants].reverse()) {
    try {
      reached.set(descendant, await cancelOne(context, descendant, options.reason, cascadeBy));
    } catch (error) {
      if (!isErrandError(error, "not_found")) throw error; // an expired descendant: nothing to stop
    }
  }
  const result = await cancelOne(context, runId, options.reason, by);
  return { ...result, descendants: descendants.flatMap((id) => reached.get(id) ?? []) };
}
