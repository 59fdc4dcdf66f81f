/**
 * Waiting for runs to settle: each waits for its stored result (the client's
 * `result` with `waitMs`, woken by the collector, never polling here).
 */
import type { Errand } from "@errand/engine";

/** The runs among `runIds` that have a stored result within `timeoutMs`. */
export async function settledWithin(
  errand: Errand,
  runIds: readonly string[],
  timeoutMs: number,
): Promise<Set<string>> {
  const settled = new Set<string>();
  await Promise.all(
    runIds.map(async (runId) => {
      const result = await errand.result(runId, { waitMs: timeoutMs }).catch(() => undefined);
      if (result !== undefined) settled.add(runId);
    }),
  );
  return settled;
}

/** The runs among `runIds` with no stored result right now. */
export async function unsettledNow(errand: Errand, runIds: readonly string[]): Promise<string[]> {
  const results = await Promise.all(
    runIds.map((runId) => errand.result(runId).catch(() => undefined)),
  );
  return runIds.filter((_, i) => results[i] === undefined);
}
