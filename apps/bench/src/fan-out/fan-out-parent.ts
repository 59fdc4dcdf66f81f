/**
 * The parent of `errand bench --fan-out`: an agent with the parent tools and
 * a model of the bench's own that plays what a model fanning out over a
 * table would. It spawns the bench's one-step children in `spawn_agents`
 * batches, then calls `collect_agents` with `wait: true` (the run parks
 * until every child has settled), then follows each page's `nextCursor`
 * until the last page, counting what it collected, and records those counts
 * as its structured output. The model reads only the last tool message of
 * its transcript, so it costs the bench nothing that grows with the tree;
 * it tells the bench when a phase ends through `onPhase`.
 */
import { ErrandError } from "@errand/core";
import { parentTools } from "@errand/engine";
import type { Agent, Model, ModelRequest, ModelResponse, TranscriptMessage } from "@errand/runtime";
import { defineAgent } from "@errand/runtime";
import { STRUCTURED_OUTPUT_TOOL } from "@errand/runtime/ops";
import { BENCH_AGENT, benchSpec } from "../bench-agent.js";

/** The fan-out parent's name. */
export const FAN_OUT_PARENT = "bench-fan-out";

/** The structured output the parent records: how many children it spawned and collected, by status. */
export const FAN_OUT_OUTPUT_SCHEMA = {
  type: "object",
  properties: {
    spawned: { type: "number" },
    collected: { type: "number" },
    succeeded: { type: "number" },
    pages: { type: "number" },
  },
  required: ["spawned", "collected", "succeeded", "pages"],
  additionalProperties: false,
} as const;

/** What the parent records. */
export interface FanOutOutput {
  spawned: number;
  collected: number;
  succeeded: number;
  pages: number;
}

/** The phases of a fan-out, in order, each ended by the parent's model. */
export type FanOutPhase = "spawned" | "settled" | "collected";

/** How the parent fans out. */
export interface FanOutPlan {
  children: number;
  /** Children per `spawn_agents` call. */
  batch: number;
  /** Results per `collect_agents` page. */
  pageLimit: number;
  /** Called (and awaited) as the model ends each phase, with the run's id. */
  onPhase(phase: FanOutPhase): Promise<void>;
}

/** The collect page fields the model reads. */
interface CollectedPage {
  total: number;
  succeeded: number;
  count: number;
  results: { status: string }[];
  hasMore: boolean;
  nextCursor?: string;
}

function call(request: ModelRequest, tool: string, args: Record<string, unknown>): ModelResponse {
  return {
    calls: [{ callId: `call_${request.step}_1`, name: tool, args }],
    usage: { inputTokens: 0, outputTokens: 0 },
    finish: "tool_calls",
  };
}

/** The last tool message of the transcript, parsed as a collect page; throws on anything else. */
function lastPage(messages: readonly TranscriptMessage[]): CollectedPage {
  const last = messages.at(-1);
  if (last?.role !== "tool") {
    throw new ErrandError("internal", "the fan-out parent expected a tool message last");
  }
  try {
    return JSON.parse(last.content) as CollectedPage;
  } catch (error) {
    throw new ErrandError(
      "internal",
      `the fan-out parent could not read a collect page (${last.content.slice(0, 80)}…)`,
      { cause: error },
    );
  }
}

/**
 * The parent's model for `plan`: steps 1 … ⌈children / batch⌉ spawn, the
 * next collects with `wait`, each later one reads a page and asks for the
 * next, and the last records the counts. It keeps its counts per run.
 */
function fanOutModel(plan: FanOutPlan): Model {
  const batches = Math.ceil(plan.children / plan.batch);
  const counts = { collected: 0, succeeded: 0, pages: 0 };
  return {
    name: "fan-out",
    supportsTools: true,
    async respond(request) {
      if (request.step <= batches) {
        const from = (request.step - 1) * plan.batch;
        const size = Math.min(plan.batch, plan.children - from);
        const agents = Array.from({ length: size }, (_, i) => {
          const { agent, input, outputSchema } = benchSpec(from + i);
          return { agent, input, outputSchema };
        });
        return call(request, "spawn_agents", { agents });
      }
      if (request.step === batches + 1) {
        await plan.onPhase("spawned");
        return call(request, "collect_agents", { wait: true, limit: plan.pageLimit });
      }
      const page = lastPage(request.messages);
      if (counts.pages === 0) await plan.onPhase("settled");
      counts.pages += 1;
      counts.collected += page.count;
      counts.succeeded += page.results.filter((result) => result.status === "succeeded").length;
      if (page.hasMore && page.nextCursor !== undefined) {
        return call(request, "collect_agents", { cursor: page.nextCursor, limit: plan.pageLimit });
      }
      await plan.onPhase("collected");
      const output: FanOutOutput = { spawned: plan.children, ...counts };
      return call(request, STRUCTURED_OUTPUT_TOOL, { ...output });
    },
  };
}

/** The fan-out parent: the parent tools listing the bench's child agent, and {@link fanOutModel}. */
export function fanOutParent(plan: FanOutPlan): Agent {
  return defineAgent({
    name: FAN_OUT_PARENT,
    instructions: "Spawn a child for every row, collect them all, record the counts.",
    model: fanOutModel(plan),
    // Its spawns, its collect pages, the wait and the record, with room to spare.
    maxSteps:
      Math.ceil(plan.children / plan.batch) + Math.ceil(plan.children / plan.pageLimit) + 10,
    timeoutMs: 24 * 3_600_000,
    tools: parentTools({ agents: [{ name: BENCH_AGENT }], maxChildrenPerParent: plan.children }),
  });
}
