/**
 * The agents the chaos harness runs, in its worker processes. Every run plays
 * its script from `input.script` on a scripted model. The side-effecting
 * `bump` tool counts its executions per tool call in Redis, so the audit can
 * tell how many side effects a crash made happen twice.
 */
import { parentTools } from "@errand/engine";
import { type Agent, defineAgent, defineTool, scriptedModel } from "@errand/runtime";
import type { Cluster, Redis } from "ioredis";
import { z } from "zod";

/** The names of the chaos agents. */
export const CHAOS_AGENTS = {
  /** Answers with text. */
  plain: "chaos-plain",
  /** Must record `{ answer: string }`. */
  structured: "chaos-structured",
  /** Spawns children and collects them (parks while they run). */
  lead: "chaos-lead",
} as const;

/** The key counting how many times `bump` ran for one tool call of one run. */
function bumpCounterKey(prefix: string, runId: string, callId: string): string {
  return `${prefix}:chaos:bump:${runId}:${callId}`;
}

/** The chaos agents, each with the counting `bump` tool. */
export function chaosAgents(redis: Redis | Cluster, prefix: string): Agent[] {
  const bump = defineTool({
    name: "bump",
    description: "A side effect that must happen once per call.",
    parameters: z.object({}),
    handler: async (_args, ctx) => ({
      count: await redis.incr(bumpCounterKey(prefix, ctx.runId, ctx.callId)),
    }),
  });
  const common = {
    instructions: "Follow your script.",
    model: scriptedModel(),
    scriptFromInput: true,
    maxSteps: 8,
  };
  return [
    defineAgent({ ...common, name: CHAOS_AGENTS.plain, tools: [bump] }),
    defineAgent({
      ...common,
      name: CHAOS_AGENTS.structured,
      tools: [bump],
      outputSchema: z.object({ answer: z.string() }),
    }),
    defineAgent({ ...common, name: CHAOS_AGENTS.lead, tools: [bump, ...parentTools()] }),
  ];
}
