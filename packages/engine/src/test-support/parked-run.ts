/**
 * The log of a run parked on a waitpoint, written straight into a store, as
 * a worker would have left it: for tests of what reads and resumes such runs.
 * Test-only: not exported.
 */
import { randomBytes } from "node:crypto";
import { newRunId } from "@errand/core";
import { waitpointToken } from "@errand/core/ops";
import type { EventStore } from "@errand/store";

/** The `ask` call the run is parked on. */
export const ASK_CALL = { callId: "call_ask", name: "ask", args: { question: "Go?" } };

/** Options of {@link writeParkedRun}. */
export interface ParkedRunOptions {
  /** The run's shard (default 0). */
  shard?: number;
  /** When the run was created and parked (default now). */
  at?: Date;
  /** When its waitpoint times out (default an hour after `at`). */
  timeoutAt?: Date;
  /** The run's own timeout (`limits.timeoutMs`; default none). */
  timeoutMs?: number;
  /** How long it ran before it parked: its `run-queued` and `run-started` so long before `at` (default 0). */
  workedMs?: number;
}

/** Writes the log of an `asker` run parked on its `ask` call; resolves with its runId and token. */
export async function writeParkedRun(
  store: EventStore,
  options: ParkedRunOptions = {},
): Promise<{ runId: string; token: string }> {
  const parkedAt = options.at ?? new Date();
  const runId = newRunId({
    shard: options.shard ?? 0,
    nowMs: parkedAt.getTime(),
    random: randomBytes(10),
  });
  const token = waitpointToken({ runId, step: 1, callId: ASK_CALL.callId });
  const at = parkedAt.toISOString();
  const startedAt = new Date(parkedAt.getTime() - (options.workedMs ?? 0)).toISOString();
  const timeoutAt = options.timeoutAt ?? new Date(parkedAt.getTime() + 3_600_000);
  const usage = { inputTokens: 1, outputTokens: 1 };
  await store.appendEvents(runId, 0, [
    {
      type: "run-queued",
      at: startedAt,
      data: {
        agent: "asker",
        input: "go",
        rootRunId: runId,
        depth: 0,
        limits: {
          maxSteps: 4,
          ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
        },
        metadata: {},
      },
    },
    { type: "run-started", at: startedAt, data: { attempt: 1, workerId: "worker-a" } },
    {
      type: "model-responded",
      at,
      data: { step: 1, calls: [ASK_CALL], usage, finish: "tool_calls" },
    },
    { type: "tool-called", at, data: { step: 1, ...ASK_CALL } },
    {
      type: "waitpoint-created",
      at,
      data: {
        step: 1,
        callId: ASK_CALL.callId,
        token,
        question: ASK_CALL.args.question,
        timeoutAt: timeoutAt.toISOString(),
        onTimeout: "result",
      },
    },
    {
      type: "run-parked",
      at,
      data: { step: 1, callId: ASK_CALL.callId, waitFor: [], reason: "waiting" },
    },
  ]);
  return { runId, token };
}
