/**
 * The agent registry: workers announce the agents they run, so that producers
 * can refuse a run for an agent nobody serves before anything is enqueued.
 * A registration outlives the workers that wrote it: runs can still be fired
 * while workers restart.
 */
import { z } from "zod";
import type { RedisConnection } from "./connection.js";
import type { EngineKeys } from "./engine-keys.js";

/** One agent as workers announce it. */
export const AgentRegistration = z.object({
  name: z.string().min(1),
  /** The BullMQ queue its runs go to. */
  queue: z.string().min(1),
  /** Whether its model can call tools, and so carry a structured-output schema. */
  supportsSchema: z.boolean(),
  /** Whether it takes its script from `input.script` (scripted model). */
  scriptFromInput: z.boolean().default(false),
  /** The agent's `maxSteps`: the limit written into each new run's `run-queued`. */
  maxSteps: z.number().int().positive().optional(),
  /** The agent's `timeoutMs`, copied into each new run's limits. */
  timeoutMs: z.number().int().positive().optional(),
  lastSeenAt: z.string(),
});
export type AgentRegistration = z.infer<typeof AgentRegistration>;

/** A stored registration, or `undefined` when the stored text is not one (never throws). */
function parseRegistration(raw: string): AgentRegistration | undefined {
  try {
    const parsed = AgentRegistration.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Writes (or refreshes) registrations in one round trip. */
export async function registerAgents(
  redis: RedisConnection,
  keys: EngineKeys,
  agents: readonly AgentRegistration[],
): Promise<void> {
  if (agents.length === 0) return;
  const fields = agents.flatMap((agent) => [agent.name, JSON.stringify(agent)]);
  await redis.hset(keys.agents, ...fields);
}

/** The registration of one agent, or `undefined` when it was never registered. */
export async function readAgentRegistration(
  redis: RedisConnection,
  keys: EngineKeys,
  name: string,
): Promise<AgentRegistration | undefined> {
  const raw = await redis.hget(keys.agents, name);
  return raw === null ? undefined : parseRegistration(raw);
}

/** Every registration, by agent name. */
export async function readAgentRegistrations(
  redis: RedisConnection,
  keys: EngineKeys,
): Promise<Map<string, AgentRegistration>> {
  const all = await redis.hgetall(keys.agents);
  const registrations = new Map<string, AgentRegistration>();
  for (const [name, raw] of Object.entries(all)) {
    const registration = parseRegistration(raw);
    if (registration) registrations.set(name, registration);
  }
  return registrations;
}
