/**
 * Fixtures for the runtime's tests: fresh run ids, a run queued and started
 * in a sink (what the engine writes before it calls `runSteps`), and a sink
 * that remembers each append. Test-only: not exported from the package.
 */
import { randomBytes } from "node:crypto";
import {
  type EventDataOf,
  foldRun,
  type NewEvent,
  newRunId,
  type RunEvent,
  type RunState,
} from "@errand/core";
import type { Agent, Model, ModelRequest } from "../model.js";
import type { EventSink } from "../sink.js";

/** A new, unique run id. */
export function testRunId(): string {
  return newRunId({ shard: 0, nowMs: Date.now(), random: randomBytes(10) });
}

/** What differs between test runs; everything else comes from the agent. */
export interface StartRunOptions {
  runId?: string;
  input?: unknown;
  /** The run's own schema; default the agent's. `null` for none. */
  outputSchema?: Record<string, unknown> | null;
  limits?: EventDataOf<"run-queued">["limits"];
  /** The model settings the run was fired with, over the agent's. Default none. */
  modelSettings?: Record<string, unknown>;
  /** The `at` of `run-queued` and `run-started`. Default now. */
  at?: string;
}

/**
 * Appends `run-queued` (as the engine would when firing `agent`) and
 * `run-started` (attempt 1) and returns the folded state to hand to `runSteps`.
 */
export async function startRun(
  sink: EventSink,
  agent: Agent,
  options: StartRunOptions = {},
): Promise<RunState> {
  const runId = options.runId ?? testRunId();
  const at = options.at ?? new Date().toISOString();
  const schema = options.outputSchema === undefined ? agent.outputSchema : options.outputSchema;
  const limits = options.limits ?? {
    maxSteps: agent.maxSteps,
    ...(agent.timeoutMs === undefined ? {} : { timeoutMs: agent.timeoutMs }),
  };
  const events: NewEvent[] = [
    {
      type: "run-queued",
      at,
      data: {
        agent: agent.name,
        input: options.input ?? "Go.",
        ...(schema === null || schema === undefined ? {} : { outputSchema: schema }),
        rootRunId: runId,
        depth: 0,
        limits,
        metadata: {},
        ...(options.modelSettings === undefined ? {} : { modelSettings: options.modelSettings }),
      },
    },
    { type: "run-started", at, data: { attempt: 1, workerId: "test-worker" } },
  ];
  return foldRun(await sink.append(runId, 0, events), runId);
}

/** A sink that passes appends through to `inner` and keeps each call's events. */
export interface RecordingSink extends EventSink {
  /** The events of each append call, in call order. */
  readonly appends: NewEvent[][];
}

/** Wraps `inner` so that each append call is recorded. */
export function recordingSink(inner: EventSink): RecordingSink {
  const appends: NewEvent[][] = [];
  return {
    appends,
    append(runId: string, expectedSeq: number, events: NewEvent[]): Promise<RunEvent[]> {
      appends.push(events);
      return inner.append(runId, expectedSeq, events);
    },
  };
}

/** A model that passes requests through to `inner` and keeps each one. */
export interface RecordingModel extends Model {
  /** Every request made, in order (including failed and retried ones). */
  readonly requests: ModelRequest[];
}

/** Wraps `inner` so that each request is recorded. */
export function recordingModel(inner: Model): RecordingModel {
  const requests: ModelRequest[] = [];
  return {
    name: inner.name,
    supportsTools: inner.supportsTools,
    ...(inner.capabilities === undefined ? {} : { capabilities: inner.capabilities }),
    ...(inner.refuseSettings === undefined
      ? {}
      : { refuseSettings: (settings) => inner.refuseSettings?.(settings) }),
    requests,
    respond(request, signal) {
      requests.push(request);
      return inner.respond(request, signal);
    },
  };
}

/** The `type` of each event, for compact assertions on a log's shape. */
export function typesOf(events: readonly { type: string }[]): string[] {
  return events.map((e) => e.type);
}

/** A retry policy for tests: the same rules, millisecond waits. */
export const FAST_RETRIES = { baseDelayMs: 1, maxDelayMs: 2 } as const;
