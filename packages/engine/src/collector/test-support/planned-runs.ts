/**
 * Whole run logs for tests, written without a worker: each planned run is a
 * deterministic list of events (same ids, same times, same data every time),
 * so the same runs can be written under two prefixes and collected twice.
 * Test-only: not exported.
 */
import { createHash } from "node:crypto";
import { type EventDataOf, type EventType, type NewEvent, newRunId } from "@errand/core";
import type { EventStore } from "@errand/store";
import type { Cluster, Redis } from "ioredis";
import type { EngineKeys } from "../../engine-keys.js";

/** Where planned runs start: their runIds' time and their events' times. */
const PLAN_START_MS = Date.parse("2026-03-01T00:00:00.000Z");

/** How a planned run ends. */
type PlannedEnding = "text" | "output" | "failed" | "cancelled" | "no-output" | "unsettled";

/** The endings in the order planned runs take them, round robin. */
const PLANNED_ENDINGS: readonly PlannedEnding[] = [
  "text",
  "output",
  "failed",
  "cancelled",
  "no-output",
  "unsettled",
];

/** One run to write. */
export interface PlannedRun {
  runId: string;
  ending: PlannedEnding;
  parentRunId?: string;
  events: NewEvent[];
}

/** Options of {@link planRuns}. */
export interface PlanOptions {
  count: number;
  /** Spread over shards 0 … `shards` − 1 (round robin). */
  shards: number;
  /** Makes the ids differ between plans. Default "plan". */
  seed?: string;
  /** The first `parents` runs are parents; every later run is the child of one of them. Default 0. */
  parents?: number;
  /** Model steps per run. Default 2. */
  steps?: number;
  /** `limits.deadlineAt` of every run that is not a parent (ISO). */
  deadlineAt?: string;
  /** The endings to cycle through. Default {@link PLANNED_ENDINGS}. */
  endings?: readonly PlannedEnding[];
}

const ANSWER_SCHEMA = {
  type: "object",
  properties: { answer: { type: "string" } },
  required: ["answer"],
  additionalProperties: false,
};

function plannedRunId(seed: string, index: number, shard: number): string {
  const random = createHash("sha256").update(`${seed}:${index}`).digest().subarray(0, 10);
  return newRunId({ shard, nowMs: PLAN_START_MS + index, random });
}

/** `count` runs with varied endings, parents first. */
export function planRuns(options: PlanOptions): PlannedRun[] {
  const { count, shards, seed = "plan", parents = 0, steps = 2 } = options;
  const endings = options.endings ?? PLANNED_ENDINGS;
  const runIds = Array.from({ length: count }, (_, index) =>
    plannedRunId(seed, index, index % shards),
  );
  return runIds.map((runId, index) => {
    const ending = endings[index % endings.length]!;
    const parentRunId = index >= parents && parents > 0 ? runIds[index % parents] : undefined;
    let tick = 0;
    const event = <T extends EventType>(type: T, data: EventDataOf<T>): NewEvent => {
      tick += 1;
      const at = new Date(PLAN_START_MS + index * 1_000 + tick).toISOString();
      return { type, at, data } as NewEvent;
    };
    const withSchema = ending === "output" || ending === "no-output";
    const events: NewEvent[] = [
      event("run-queued", {
        agent: index % 2 === 0 ? "researcher" : "writer",
        input: { question: `question ${index}` },
        ...(withSchema ? { outputSchema: ANSWER_SCHEMA } : {}),
        ...(parentRunId === undefined ? {} : { parentRunId }),
        rootRunId: parentRunId ?? runId,
        depth: parentRunId === undefined ? 0 : 1,
        limits: {
          maxSteps: 10,
          ...(options.deadlineAt === undefined || index < parents
            ? {}
            : { deadlineAt: options.deadlineAt }),
        },
        metadata: {},
      }),
      event("run-started", { attempt: 1, workerId: "worker-1" }),
    ];
    for (let step = 1; step <= steps; step += 1) {
      events.push(
        event("model-responded", {
          step,
          text: `step ${step} of run ${index}`,
          calls: [],
          usage: { inputTokens: 10 + index, outputTokens: step },
          finish: "stop",
        }),
      );
    }
    if (ending === "text") events.push(event("finished", { text: `answer ${index}` }));
    if (ending === "output") {
      events.push(
        event("output-recorded", { step: steps, callId: "call-1", output: { answer: `${index}` } }),
        event("finished", {}),
      );
    }
    if (ending === "no-output") events.push(event("finished", { text: "forgot the tool" }));
    if (ending === "failed") {
      events.push(event("failed", { code: "model_error", message: "model down", retryable: true }));
    }
    if (ending === "cancelled") {
      events.push(
        event("cancel-requested", { reason: "not needed", by: "test" }),
        event("cancelled", {}),
      );
    }
    return { runId, ending, ...(parentRunId === undefined ? {} : { parentRunId }), events };
  });
}

/**
 * Writes the runs' events one append per event, interleaved: every run's
 * first event, then every run's second, and so on, so that each shard stream
 * mixes runs the way concurrent workers would. Only the first `upTo` events
 * of each run are written (default all); `from` skips events already written.
 */
export async function writeRuns(
  store: EventStore,
  runs: readonly PlannedRun[],
  { from = 0, upTo }: { from?: number; upTo?: number } = {},
): Promise<void> {
  const longest = Math.max(0, ...runs.map((run) => run.events.length));
  for (let index = from; index < (upTo ?? longest); index += 1) {
    await Promise.all(
      runs
        .filter((run) => index < run.events.length)
        .map((run) => store.appendEvents(run.runId, index, [run.events[index]!])),
    );
  }
}

/** Records each child of `runs` among its parent's children, as `fire` does when it fires one. */
export async function linkChildren(
  redis: Redis | Cluster,
  keys: EngineKeys,
  runs: readonly PlannedRun[],
): Promise<void> {
  await Promise.all(
    runs.flatMap(({ runId, parentRunId }) =>
      parentRunId === undefined ? [] : [redis.zadd(keys.children(parentRunId), 0, runId)],
    ),
  );
}

/** True for a run whose log ends with a terminal event. */
export function settles(run: PlannedRun): boolean {
  return run.ending !== "unsettled";
}

/** The runIds of the runs of `runs` whose logs end with a terminal event, in order. */
export function settlingRunIds(runs: readonly PlannedRun[]): string[] {
  return runs.filter(settles).map((run) => run.runId);
}
