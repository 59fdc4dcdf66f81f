/**
 * The spec of a run fired again (`start_runs` with `retryOf`): the agent,
 * input, output schema, metadata and priority its `run-queued` recorded,
 * under the idempotency key `retry-of:<runId>`, so that the same retry sent
 * twice fires one run. Not its version (the newest live one takes it), nor
 * its deadline (counted from the first fire).
 */
import { ErrandError } from "@errand/core";
import type { FireSpec } from "@errand/engine";
import type { McpErrand } from "../server/errand-services.js";

/** The spec that fires `runId` again; throws `not_found` for a run without a log. */
export async function retriedSpec(errand: McpErrand, runId: string): Promise<FireSpec> {
  for await (const event of errand.events(runId)) {
    if (event.type !== "run-queued") break;
    const { agent, input, outputSchema, metadata, priority } = event.data;
    return {
      agent,
      input,
      ...(outputSchema === undefined ? {} : { outputSchema }),
      ...(Object.keys(metadata).length === 0 ? {} : { metadata }),
      ...(priority === undefined ? {} : { priority }),
      idempotencyKey: `retry-of:${runId}`,
    };
  }
  throw new ErrandError("not_found", `run ${runId} has no log to fire again from`, {
    details: { runId },
  });
}
