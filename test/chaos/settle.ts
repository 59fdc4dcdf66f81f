/**
 * Waiting for runs to settle as a caller does: each run with the client's
 * `result` (`waitMs`, woken by the collector, never polling here) and all of
 * them at once with `collect` (`waitMs`, page by page). A call that rejects
 * is kept in `ClientCalls` (the client failed its caller) and made again
 * until the time is up: recovery is the system's, the failure the client's.
 * The time may be a deadline that moves later while the wait goes on.
 */
import type { Errand } from "@errand/engine";
import type { ClientCalls } from "./client-calls.js";

/** The largest page `collect` answers. */
const COLLECT_PAGE = 500;

/** The pause before a failed call is made again, in ms. */
const RETRY_PAUSE_MS = 200;

const pause = () => new Promise((resolve) => setTimeout(resolve, RETRY_PAUSE_MS));

/** When a wait ends (epoch ms), read again each time: it may move later. */
export type Deadline = () => number;

/** Whether run `runId` has a stored result within `deadline`, asking `result` again after a failed call or a moved deadline. */
async function resultWithin(
  errand: Errand,
  runId: string,
  deadline: Deadline,
  calls: ClientCalls,
): Promise<boolean> {
  for (;;) {
    const waitMs = deadline() - Date.now();
    if (waitMs <= 0) return false;
    try {
      if ((await errand.result(runId, { waitMs })) !== undefined) return true;
    } catch (error) {
      calls.failed("result", error);
      await pause();
    }
  }
}

/** Waits with `collect` until every run of `runIds` settled or `deadline` passed, page by page. */
async function collectWithin(
  errand: Errand,
  runIds: readonly string[],
  deadline: Deadline,
  calls: ClientCalls,
): Promise<void> {
  for (let start = 0; start < runIds.length; start += COLLECT_PAGE) {
    const page = runIds.slice(start, start + COLLECT_PAGE);
    for (;;) {
      const waitMs = deadline() - Date.now();
      if (waitMs <= 0) return;
      try {
        const collected = await errand.collect(page, { waitMs, limit: COLLECT_PAGE });
        if (collected.pending === 0) break;
      } catch (error) {
        calls.failed("collect", error);
        await pause();
      }
    }
  }
}

/** The runs that settled, and when the last of them did. */
export interface SettledRuns {
  runIds: Set<string>;
  /** When (epoch ms) the last `result` wait answered with a result; when the wait began if none did. */
  lastAt: number;
}

/**
 * The runs among `runIds` that have a stored result within `timeoutMs`,
 * each awaited with `result`; meanwhile a `collect` waits on all of them,
 * as a parent would.
 */
export function settledWithin(
  errand: Errand,
  runIds: readonly string[],
  timeoutMs: number,
  calls: ClientCalls,
): Promise<SettledRuns> {
  const deadline = Date.now() + timeoutMs;
  return settledBy(errand, runIds, () => deadline, calls);
}

/** The runs among `runIds` that have a stored result before `deadline`, awaited as {@link settledWithin} does. */
export async function settledBy(
  errand: Errand,
  runIds: readonly string[],
  deadline: Deadline,
  calls: ClientCalls,
): Promise<SettledRuns> {
  const settled: SettledRuns = { runIds: new Set(), lastAt: Date.now() };
  await Promise.all([
    ...runIds.map(async (runId) => {
      if (!(await resultWithin(errand, runId, deadline, calls))) return;
      settled.runIds.add(runId);
      settled.lastAt = Date.now();
    }),
    collectWithin(errand, runIds, deadline, calls),
  ]);
  return settled;
}

/**
 * The runs among `runIds` with no stored result right now. A failed read is
 * kept, and its run counted unsettled. Runs in `knownSettled` are not asked
 * again (a stored result stays); those found settled are added to it.
 */
export async function unsettledNow(
  errand: Errand,
  runIds: readonly string[],
  calls: ClientCalls,
  knownSettled: Set<string> = new Set(),
): Promise<string[]> {
  const asked = runIds.filter((runId) => !knownSettled.has(runId));
  const results = await Promise.all(
    asked.map((runId) =>
      errand.result(runId).catch((error: unknown) => {
        calls.failed("result", error);
        return undefined;
      }),
    ),
  );
  for (const [i, runId] of asked.entries()) if (results[i] !== undefined) knownSettled.add(runId);
  return asked.filter((_, i) => results[i] === undefined);
}
