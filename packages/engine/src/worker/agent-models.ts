/**
 * The model each agent of a worker runs on. An agent that carries a `Model`
 * runs on it; one that names a model (`"gpt-4o-mini"`) is resolved once, when
 * the worker starts: by the worker's `models` option, else by `openaiModel`
 * when `OPENAI_API_KEY` or `OPENAI_BASE_URL` is set (a base URL alone is
 * enough: a local server needs no key). What the model can do
 * goes into the agent's registration (`supportsSchema`, `capabilities`).
 */
import { ErrandError } from "@errand/core";
import { type Agent, agentVersion, type Model, openaiModel, readOpenAIEnv } from "@errand/runtime";
import {
  assertAgentCanCarrySchema,
  assertModelIsReady,
  assertModelTakesSettings,
} from "@errand/runtime/ops";
import type { AgentRegistration, QueueRecords } from "../queues/registry.js";

/** Picks the model of an agent that names one; `undefined` leaves it to the default. */
export type ModelResolver = (agent: Agent) => Model | undefined;

/** An agent with the model it runs on and its version (`agentVersion`). */
export interface ResolvedAgent {
  agent: Agent;
  model: Model;
  version: string;
}

function defaultModel(agent: Agent, name: string): Model {
  const { apiKey, baseURL } = readOpenAIEnv();
  if (apiKey === undefined && baseURL === undefined) {
    throw new ErrandError(
      "invalid_spec",
      `agent ${agent.name} names its model (${name}): pass createWorker({ models }) or set OPENAI_API_KEY or OPENAI_BASE_URL (a compatible server needs no key)`,
    );
  }
  return openaiModel({ model: name });
}

/**
 * The model of every agent, by agent name. Throws an `ErrandError`:
 * `invalid_spec` for no agent at all, two agents of one name or a model name
 * nothing resolves; `schema_not_supported` for a schema'd agent on a model without tools;
 * `settings_not_supported` for model settings the resolved model cannot honour;
 * `invalid_spec` for a model that cannot send requests (its API key unset).
 */
export function resolveAgentModels(
  agents: readonly Agent[],
  resolver?: ModelResolver,
): Map<string, ResolvedAgent> {
  if (agents.length === 0)
    throw new ErrandError("invalid_spec", "a worker runs at least one agent");
  const resolved = new Map<string, ResolvedAgent>();
  for (const agent of agents) {
    if (resolved.has(agent.name)) {
      throw new ErrandError("invalid_spec", `two agents of this worker are named ${agent.name}`);
    }
    const model =
      typeof agent.model === "string"
        ? (resolver?.(agent) ?? defaultModel(agent, agent.model))
        : agent.model;
    assertAgentCanCarrySchema(agent, model);
    assertModelTakesSettings(agent, model);
    assertModelIsReady(agent, model);
    resolved.set(agent.name, { agent, model, version: agentVersion(agent) });
  }
  return resolved;
}

/** The records a worker of `queue` running `agents` keeps in the registry, as of `now` (its start). */
export function queueRecords(
  agents: ReadonlyMap<string, ResolvedAgent>,
  queue: string,
  heartbeatMs: number,
  now: Date,
): Required<QueueRecords> {
  const lastSeenAt = now.toISOString();
  const registration = ({ agent, model, version }: ResolvedAgent): AgentRegistration => ({
    name: agent.name,
    ...(agent.description === undefined ? {} : { description: agent.description }),
    queue,
    supportsSchema: model.supportsTools,
    ...(model.capabilities === undefined ? {} : { capabilities: model.capabilities }),
    takesSettings: model.refuseSettings !== undefined,
    ...(Object.keys(agent.modelSettings).length === 0
      ? {}
      : { modelSettings: agent.modelSettings }),
    scriptFromInput: agent.scriptFromInput,
    maxSteps: agent.maxSteps,
    ...(agent.timeoutMs === undefined ? {} : { timeoutMs: agent.timeoutMs }),
    ...(agent.inputSchema === undefined ? {} : { inputSchema: agent.inputSchema }),
    ...(agent.outputSchema === undefined ? {} : { outputSchema: agent.outputSchema }),
    version,
    startedAt: lastSeenAt,
    heartbeatMs,
    lastSeenAt,
  });
  return {
    queue: { queue, agents: [...agents.keys()].sort(), heartbeatMs, lastSeenAt },
    agents: [...agents.values()].map(registration),
  };
}
