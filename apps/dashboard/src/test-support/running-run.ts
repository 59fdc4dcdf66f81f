/** A run to cancel in tests: one that a worker holds for a minute. Test-only. */
import { CITY, cityAnswerSchema, slowChild } from "./agents.js";
import type { Workload } from "./workload.js";

/** Fires a city run that thinks for a minute and waits until a worker has started it. */
export async function fireRunningRun(
  w: Workload,
  metadata: Record<string, string> = {},
): Promise<string> {
  const { runId } = await w.errand.fire({
    agent: CITY,
    input: { script: slowChild() },
    outputSchema: cityAnswerSchema,
    metadata,
  });
  await w.waitForEvent(runId, (event) => event.type === "run-started");
  return runId;
}
