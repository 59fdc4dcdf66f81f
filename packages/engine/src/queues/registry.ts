/**
 * The agent registry: which queues serve which agents. The workers of a queue
 * all run the same set of agents (the queue is named after that set, see
 * `agent-queues.ts`), and while they live they keep two records fresh: the
 * queue's own (its agents, when a worker last beat) and, for each of its
 * agents, how that queue runs it (its description, input and output schemas,
 * limits, whether its model can call tools and what else it honours). `fire` reads an agent's records to refuse a run nobody serves
 * and to pick the queue its job goes to, so a run is only ever taken by a
 * worker that runs its agent.
 *
 * Records outlive the workers that wrote them on purpose: a run fired while
 * every worker of its agent restarts waits in the queue of the workers last
 * seen, and `doctor` and the dashboard say so.
 */
import { ModelCapabilities } from "@errand/runtime";
import { z } from "zod";
import type { EngineKeys } from "../engine-keys.js";
import type { RedisConnection } from "../redis/connection.js";

/** How many missed heartbeats make a queue's workers count as gone. */
export const LIVE_HEARTBEATS = 3;

/** One agent as the workers of one queue run it. */
export const AgentRegistration = z.object({
  name: z.string().min(1),
  /** The agent's one-line description. Absent for agents without one and in records of older workers. */
  description: z.string().optional(),
  /** The BullMQ queue whose workers run it. */
  queue: z.string().min(1),
  /** Whether its model can call tools, and so carry a structured-output schema. */
  supportsSchema: z.boolean(),
  /**
   * What its model honours (`Model.capabilities`): `fire` refuses a schema
   * or per-run settings it cannot take. Absent when the model declares none
   * and in records of older workers: `fire` then checks `supportsSchema` only.
   */
  capabilities: ModelCapabilities.optional(),
  /**
   * Whether its model takes model settings at all (`Model.refuseSettings`):
   * `fire` refuses per-run settings for a model that takes none. Absent in
   * records of older workers: taken as false.
   */
  takesSettings: z.boolean().optional(),
  /** The agent's own model settings, which a run's settings go over: `fire` checks them together. */
  modelSettings: z.record(z.string(), z.unknown()).optional(),
  /** Whether it takes its script from `input.script` (scripted model). */
  scriptFromInput: z.boolean().default(false),
  /** The agent's `maxSteps`: the limit written into each new run's `run-queued`. */
  maxSteps: z.number().int().positive().optional(),
  /** The agent's `timeoutMs`, copied into each new run's limits. */
  timeoutMs: z.number().int().positive().optional(),
  /** The agent's input schema (JSON Schema): `fire` refuses an input that does not match it. */
  inputSchema: z.record(z.string(), z.unknown()).optional(),
  /** The agent's own output schema (JSON Schema): every run of it records one. */
  outputSchema: z.record(z.string(), z.unknown()).optional(),
  /**
   * The agent's version (`agentVersion`) on these workers: each version of an
   * agent on a queue has its own record. Absent in records of workers older than versions.
   */
  version: z.string().min(1).max(128).optional(),
  /** When the worker that wrote the record started: the version started last is the newest. */
  startedAt: z.string().optional(),
  /** How often the queue's workers beat, in ms: its liveness window is {@link LIVE_HEARTBEATS} of them. */
  heartbeatMs: z.number().int().positive(),
  /** When a worker of the queue (of this version) last beat (ISO-8601). */
  lastSeenAt: z.string(),
  /** When the last worker of the queue (of this version) closed, if it did after its last beat: no worker is live since. */
  stoppedAt: z.string().optional(),
});
export type AgentRegistration = z.infer<typeof AgentRegistration>;

/** One queue: the agents its workers run, and when one of them last beat. */
export const QueueRegistration = z.object({
  queue: z.string().min(1),
  /** Its agents, sorted: every worker of the queue runs exactly these. */
  agents: z.array(z.string().min(1)),
  heartbeatMs: z.number().int().positive(),
  lastSeenAt: z.string(),
  /** As {@link AgentRegistration}'s. */
  stoppedAt: z.string().optional(),
});
export type QueueRegistration = z.infer<typeof QueueRegistration>;

/** What a heartbeat writes: a queue's record and the records of its agents. */
export interface QueueRecords {
  /** The queue's record; `undefined` writes the agents' records alone. */
  queue?: QueueRegistration;
  agents: readonly AgentRegistration[];
}

/** The field of an agent's registry hash that holds `registration`: its queue, and its version when it has one. */
function registrationField(registration: AgentRegistration): string {
  return registration.version === undefined
    ? registration.queue
    : `${registration.queue}@${registration.version}`;
}

/**
 * Parsed records by their stored text: a record is parsed once per beat, not
 * once per `fire`. The parsed objects are shared: never modify one.
 */
const parsedRecords = new Map<string, unknown>();
const PARSED_RECORDS_KEPT = 512;

/** A stored record, or `undefined` when the stored text is not one (never throws). */
function parseRecord<T>(schema: z.ZodType<T>, raw: string): T | undefined {
  const known = parsedRecords.get(raw);
  if (known !== undefined) return known as T;
  let parsed: T | undefined;
  try {
    const result = schema.safeParse(JSON.parse(raw));
    parsed = result.success ? result.data : undefined;
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined) return undefined;
  if (parsedRecords.size >= PARSED_RECORDS_KEPT) parsedRecords.clear();
  parsedRecords.set(raw, parsed);
  return parsed;
}

/**
 * Writes (or refreshes) a queue's record and its agents' records (one per
 * version). The commands go out together but not as one pipeline: on a Redis
 * Cluster the records of different agents live in different slots.
 */
export async function registerQueue(
  redis: RedisConnection,
  keys: EngineKeys,
  records: QueueRecords,
): Promise<void> {
  const { queue } = records;
  await Promise.all([
    ...(queue === undefined
      ? []
      : [redis.hset(keys.queueRegistry, queue.queue, JSON.stringify(queue))]),
    ...records.agents.map((agent) =>
      redis.hset(keys.agentRegistry(agent.name), registrationField(agent), JSON.stringify(agent)),
    ),
  ]);
}

/** How each queue that serves `agent` runs it; empty when none ever did. */
export async function readAgentRegistrations(
  redis: RedisConnection,
  keys: EngineKeys,
  agent: string,
): Promise<AgentRegistration[]> {
  const all = await redis.hgetall(keys.agentRegistry(agent));
  return Object.values(all).flatMap((raw) => parseRecord(AgentRegistration, raw) ?? []);
}

/** Every queue ever registered, sorted by name. */
export async function readQueueRegistrations(
  redis: RedisConnection,
  keys: EngineKeys,
): Promise<QueueRegistration[]> {
  const all = await redis.hgetall(keys.queueRegistry);
  return Object.values(all)
    .flatMap((raw) => parseRecord(QueueRegistration, raw) ?? [])
    .sort((a, b) => a.queue.localeCompare(b.queue));
}

/** The names of every registered agent, sorted. */
export async function readRegisteredAgents(
  redis: RedisConnection,
  keys: EngineKeys,
): Promise<string[]> {
  const queues = await readQueueRegistrations(redis, keys);
  return [...new Set(queues.flatMap((queue) => queue.agents))].sort();
}

/**
 * Whether a worker of the queue of `registration` beat within its liveness
 * window at `now`, and the last one did not close since.
 */
export function isLive(
  registration: Pick<AgentRegistration, "heartbeatMs" | "lastSeenAt" | "stoppedAt">,
  now: Date,
): boolean {
  if (registration.stoppedAt !== undefined) return false;
  const seen = Date.parse(registration.lastSeenAt);
  return now.getTime() - seen <= LIVE_HEARTBEATS * registration.heartbeatMs;
}

/** The version of the live registrations whose worker started last: an agent's newest. */
function newestVersion(live: readonly AgentRegistration[]): string | undefined {
  return live.reduce((newest, registration) =>
    (registration.startedAt ?? "") > (newest.startedAt ?? "") ? registration : newest,
  ).version;
}

/**
 * The registration a new run of an agent follows (its queue, version, schema
 * and limits): of the agent's `version` when given, else of its newest live
 * version (the one whose workers started last); among those, one of the
 * queues with a live worker, chosen at random so that runs spread over them;
 * when none is live, the registration seen last, where the run waits for its
 * workers. `undefined` for no registration (of that version).
 */
export function chooseRegistration(
  registrations: readonly AgentRegistration[],
  now: Date,
  version?: string,
  random: () => number = Math.random,
): AgentRegistration | undefined {
  const candidates =
    version === undefined
      ? registrations
      : registrations.filter((registration) => registration.version === version);
  const live = candidates.filter((registration) => isLive(registration, now));
  if (live.length > 0) {
    const newest = version ?? newestVersion(live);
    const ofVersion = live.filter((registration) => registration.version === newest);
    return ofVersion[Math.floor(random() * ofVersion.length)];
  }
  return candidates.reduce<AgentRegistration | undefined>(
    (latest, registration) =>
      latest === undefined || registration.lastSeenAt > latest.lastSeenAt ? registration : latest,
    undefined,
  );
}
