/**
 * A fan-out parent's own memory at any number of children, without the
 * children: `runSteps` drives the bench's fan-out parent (`fan-out-parent.ts`:
 * `spawn_agents` batches of 1,000, then `collect_agents` pages of 100) with
 * tools of the same names that answer at once, shaped and sized as the
 * engine's (1,000 runIds a spawn, 100 bench results a page). The sink and the
 * blob store keep nothing: the log is Redis' cost, not the worker's. It
 * reports the live heap (after a full collection) every 1,000 steps and the
 * peak RSS: what the worker's share of a parent is at 1,000,000 children,
 * which `bench --fan-out` cannot tell apart from its children's. Run after a
 * build as `node apps/bench/dist/fan-out/parent-memory-main.js [children]`.
 */

import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import type { NewEvent, RunEvent } from "@errand/core";
import { foldRun } from "@errand/core";
import {
  type BlobStore,
  type EventSink,
  runSteps,
  type Tool,
  type ToolContext,
} from "@errand/runtime";
import { BENCH_AGENT } from "../bench-agent.js";
import { FAN_OUT_BATCH, FAN_OUT_PAGE_LIMIT } from "./fan-out-bench.js";
import { FAN_OUT_OUTPUT_SCHEMA, fanOutParent } from "./fan-out-parent.js";

/** One sample: the live heap after a full collection, at a step. */
interface ParentMemorySample {
  step: number;
  liveHeapMb: number;
  /** The messages of that step's model request. */
  messages: number;
}

/** What {@link runParentMemoryBench} measured. */
export interface ParentMemoryReport {
  children: number;
  steps: number;
  seconds: number;
  /** This process's peak resident set, MB. */
  peakRssMb: number;
  samples: ParentMemorySample[];
}

/** `gc()`, exposed for this process. */
function collector(): () => void {
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}

const childId = (index: number) => `R01M9CHILD${String(index).padStart(19, "0")}`;

/**
 * The parent's own `spawn_agents` and `collect_agents` (their names,
 * descriptions and parameters), answering at once for `children` children.
 */
function instantParentTools(tools: readonly Tool[], children: number): Tool[] {
  const spawn = (args: { agents: unknown[] }, ctx: ToolContext) => {
    const from = (ctx.step - 1) * FAN_OUT_BATCH;
    const results = args.agents.map((_, i) => ({
      ok: true,
      runId: childId(from + i),
      agent: BENCH_AGENT,
    }));
    const count = results.length;
    return { total: count, succeeded: count, failed: 0, results };
  };
  const collect = (args: { cursor?: string }) => {
    const start = args.cursor === undefined ? 0 : Number(args.cursor);
    const count = Math.min(FAN_OUT_PAGE_LIMIT, children - start);
    const results = Array.from({ length: count }, (_, i) => ({
      runId: childId(start + i),
      ok: true,
      status: "succeeded",
      output: { answer: "ok" },
    }));
    const end = start + count;
    const next = end < children ? { nextCursor: String(end) } : {};
    const totals = { total: children, succeeded: children, failed: 0, cancelled: 0, pending: 0 };
    return { ...totals, count, results, hasMore: end < children, ...next };
  };
  const handlers: Record<string, Tool["handler"]> = {
    spawn_agents: spawn as Tool["handler"],
    collect_agents: collect as Tool["handler"],
  };
  return tools.map((tool) => ({ ...tool, handler: handlers[tool.name] ?? tool.handler }));
}

/** A sink that numbers what it is given and keeps none of it. */
function forgettingSink(): EventSink {
  let seq = 0;
  return {
    async append(runId, _expectedSeq, events: NewEvent[]) {
      return events.map((event) => ({ v: 1, runId, seq: ++seq, ...event }) as RunEvent);
    },
  };
}

/** A blob store that answers with references and keeps nothing (a parent run here never resumes). */
const forgettingBlobs: BlobStore = {
  async put(runId, value, contentType) {
    return {
      ref: `resource://runs/${runId}/blobs/0`,
      contentType,
      sizeBytes: Buffer.byteLength(value),
      sha256: "0".repeat(64),
    };
  },
  async get() {
    return undefined;
  },
};

/** Runs the fan-out parent alone over `children` children and measures its memory. */
export async function runParentMemoryBench(children: number): Promise<ParentMemoryReport> {
  const gc = collector();
  const samples: ParentMemorySample[] = [];
  const plan = {
    children,
    batch: FAN_OUT_BATCH,
    pageLimit: FAN_OUT_PAGE_LIMIT,
    onPhase: async () => {},
  };
  const parent = fanOutParent(plan);
  const model = parent.model;
  if (typeof model === "string") throw new Error("the fan-out parent brings its own model");
  const sampling = {
    ...model,
    respond: (request: Parameters<typeof model.respond>[0], signal: AbortSignal) => {
      if (request.step % 1_000 === 0) {
        gc();
        const liveHeapMb = Math.round(process.memoryUsage().heapUsed / 1e6);
        samples.push({ step: request.step, liveHeapMb, messages: request.messages.length });
      }
      return model.respond(request, signal);
    },
  };
  const agent = { ...parent, model: sampling, tools: instantParentTools(parent.tools, children) };
  const sink = forgettingSink();
  const runId = "R01M9PARENTMEMORY000000000001";
  const at = new Date().toISOString();
  const queued: NewEvent[] = [
    {
      type: "run-queued",
      at,
      data: {
        agent: agent.name,
        input: { children },
        outputSchema: { ...FAN_OUT_OUTPUT_SCHEMA },
        rootRunId: runId,
        depth: 0,
        limits: { maxSteps: agent.maxSteps },
        metadata: {},
      },
    },
    { type: "run-started", at, data: { attempt: 1, workerId: "parent-memory" } },
  ];
  const state = foldRun(await sink.append(runId, 0, queued), runId);
  const start = performance.now();
  const settled = await runSteps({
    agent,
    state,
    sink,
    blobs: forgettingBlobs,
    signal: new AbortController().signal,
  });
  if (settled.status !== "succeeded") throw new Error(`the parent ended ${settled.status}`);
  return {
    children,
    steps: settled.steps.length,
    seconds: Math.round((performance.now() - start) / 100) / 10,
    peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
    samples,
  };
}
