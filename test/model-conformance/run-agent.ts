/**
 * Runs an agent from a freshly queued run to its end with `runSteps`, as a
 * worker would after firing, and hands back what the conformance scenarios
 * assert on.
 */
import { randomBytes } from "node:crypto";
import {
  foldRun,
  newRunId,
  type RunEvent,
  type RunResult,
  type RunState,
  settleRun,
} from "@errand/core";
import { type Agent, createMemorySink, type Model, runSteps } from "@errand/runtime";

/** A played run. */
export interface PlayedRun {
  state: RunState;
  /** The events `runSteps` wrote, after `run-queued` and `run-started`. */
  events: RunEvent[];
  result: RunResult | undefined;
  /** The waits between retries, in milliseconds (none is really waited). */
  waits: number[];
}

/** Queues and starts a run of `agent` on `model` with `input`, then runs it to its end. */
export async function runAgent(agent: Agent, model: Model, input: unknown): Promise<PlayedRun> {
  const sink = createMemorySink();
  const runId = newRunId({ shard: 0, nowMs: Date.now(), random: randomBytes(10) });
  const at = new Date().toISOString();
  const started = await sink.append(runId, 0, [
    {
      type: "run-queued",
      at,
      data: {
        agent: agent.name,
        input,
        ...(agent.outputSchema === undefined ? {} : { outputSchema: agent.outputSchema }),
        rootRunId: runId,
        depth: 0,
        limits: { maxSteps: agent.maxSteps },
        metadata: {},
      },
    },
    { type: "run-started", at, data: { attempt: 1, workerId: "conformance" } },
  ]);
  const waits: number[] = [];
  const state = await runSteps({
    agent,
    state: foldRun(started),
    model,
    sink,
    signal: new AbortController().signal,
    retry: {
      sleep: async (ms) => {
        waits.push(ms);
      },
    },
  });
  return {
    state,
    events: sink.events(runId).slice(started.length),
    result: settleRun(state),
    waits,
  };
}
