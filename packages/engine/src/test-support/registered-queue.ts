/**
 * Registering a queue and its agents without a worker, as one would have:
 * for tests whose runs must be accepted by `fire` (and maybe never taken).
 * Test-only: not exported.
 */

import type { EngineKeys } from "../engine-keys.js";
import { queueOfAgents } from "../queues/agent-queues.js";
import { type AgentRegistration, registerQueue } from "../queues/registry.js";
import type { RedisConnection } from "../redis/connection.js";
import { DEFAULT_HEARTBEAT_MS } from "../worker/heartbeat.js";

/** An agent to register: its name, and whatever differs from a scripted agent that can carry a schema. */
export type TestAgentRecord = Pick<AgentRegistration, "name"> &
  Partial<Omit<AgentRegistration, "name" | "queue">>;

/**
 * Registers `agents` as served by one queue (named after them, unless
 * `queue` is given) whose worker beat at `lastSeenAt` (default now);
 * resolves with the queue's name.
 */
export async function registerTestQueue(
  redis: RedisConnection,
  keys: EngineKeys,
  agents: readonly TestAgentRecord[],
  options: { queue?: string; lastSeenAt?: string; heartbeatMs?: number } = {},
): Promise<string> {
  const queue =
    options.queue ??
    queueOfAgents(
      keys.prefix,
      agents.map(({ name }) => name),
    );
  const heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
  const lastSeenAt = options.lastSeenAt ?? new Date().toISOString();
  const records = agents.map(
    (agent): AgentRegistration => ({
      supportsSchema: true,
      scriptFromInput: true,
      ...agent,
      queue,
      heartbeatMs,
      lastSeenAt,
    }),
  );
  await registerQueue(redis, keys, {
    queue: { queue, agents: records.map(({ name }) => name).sort(), heartbeatMs, lastSeenAt },
    agents: records,
  });
  return queue;
}
