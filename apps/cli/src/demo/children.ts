/**
 * Finding the demo parent's children from its log: the runIds its
 * `spawn_agents` call returned, whatever the shape of that result, and which
 * planned child each of them is.
 */
import type { RunEvent } from "@errand/core";
import { isRunId } from "@errand/core/ops";
import type { Errand } from "@errand/engine";

/** The tool a parent spawns children with. */
const SPAWN_TOOL = "spawn_agents";

/** Every run id found anywhere in `value`, in order, each once. */
function runIdsIn(value: unknown, found: Set<string> = new Set()): string[] {
  if (isRunId(value)) found.add(value);
  else if (Array.isArray(value)) for (const item of value) runIdsIn(item, found);
  else if (typeof value === "object" && value !== null) {
    for (const item of Object.values(value)) runIdsIn(item, found);
  }
  return [...found];
}

/** The full result of a tool call: inline, or read back from its blob when it was too large. */
async function fullResult(
  errand: Errand,
  event: Extract<RunEvent, { type: "tool-result" }>,
): Promise<unknown> {
  if (event.data.ref === undefined) return event.data.result;
  const blob = await errand.store.getBlob(event.data.ref);
  return blob === undefined ? event.data.result : JSON.parse(blob.value);
}

/**
 * The children `parentRunId` spawned, read from its log as it is written:
 * the runIds in the result of its first successful `spawn_agents` call, or
 * `[]` when the parent settles (or `signal` aborts) before one.
 */
export async function spawnedChildren(
  errand: Errand,
  parentRunId: string,
  signal: AbortSignal,
): Promise<string[]> {
  const spawnCalls = new Set<string>();
  for await (const event of errand.events(parentRunId, { follow: true, signal })) {
    if (event.type === "model-responded") {
      for (const call of event.data.calls)
        if (call.name === SPAWN_TOOL) spawnCalls.add(call.callId);
    }
    if (event.type === "tool-result" && spawnCalls.has(event.data.callId) && event.data.ok) {
      return runIdsIn(await fullResult(errand, event)).filter((runId) => runId !== parentRunId);
    }
  }
  return [];
}

/** The input a run was fired with (from its `run-queued` event). */
export async function inputOf(errand: Errand, runId: string): Promise<unknown> {
  for await (const event of errand.events(runId)) {
    if (event.type === "run-queued") return event.data.input;
  }
  return undefined;
}

/** Resolves once the run has started (or settled, or `signal` aborted). */
export async function untilStarted(
  errand: Errand,
  runId: string,
  signal: AbortSignal,
): Promise<void> {
  for await (const event of errand.events(runId, { follow: true, signal })) {
    if (event.type === "run-started") return;
  }
}
