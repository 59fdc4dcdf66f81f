/**
 * The lookups of one `fire` or `fireMany` call, each made at most once per
 * call: a batch of specs for the same agent or parent reads its registration
 * or head once, and the reads of one batch leave in the same round trip.
 */
import type { RunBudget } from "@errand/core";
import type { EventStore } from "@errand/store";
import { readScopeSpend, type ScopeSpend } from "../budgets/tree-budget.js";
import type { EngineKeys } from "../engine-keys.js";
import { readAgentRegistrations, readRegisteredAgents } from "../queues/registry.js";
import type { RedisConnection } from "../redis/connection.js";
import type { PreflightLookups } from "./fire-preflight.js";

/**
 * `load`, made once per key. Its map is made at the first call: a `fire`
 * uses one or two of a call's lookups, and makes its lookups every call.
 */
function memoize<T>(load: (key: string) => Promise<T>): (key: string) => Promise<T> {
  let loaded: Map<string, Promise<T>> | undefined;
  return (key) => {
    loaded ??= new Map();
    let value = loaded.get(key);
    if (!value) {
      value = load(key);
      loaded.set(key, value);
    }
    return value;
  };
}

/** The budgets run `runId` counts against, read from its `run-queued` (its first event). */
async function queuedBudget(store: EventStore, runId: string): Promise<RunBudget | undefined> {
  const [first] = await store.readLog(runId, { count: 1 });
  return first?.type === "run-queued" ? first.data.budget : undefined;
}

/** Lookups on `redis` for one call: registrations from the agent registry, heads from the store. */
export function createPreflightLookups(
  redis: RedisConnection,
  keys: EngineKeys,
  store: EventStore,
): PreflightLookups {
  const spendOf = memoize((pair): Promise<ScopeSpend> => {
    const [treeRunId = "", scopeRunId = ""] = pair.split(" ");
    return readScopeSpend(redis, keys, treeRunId, scopeRunId);
  });
  return {
    registrations: memoize((agent) => readAgentRegistrations(redis, keys, agent)),
    registeredAgents: () => readRegisteredAgents(redis, keys),
    head: memoize((runId) => store.readHead(runId)),
    budgetOf: memoize(async (runId) => queuedBudget(store, runId)),
    scopeSpend: (treeRunId, scopeRunId) => spendOf(`${treeRunId} ${scopeRunId}`),
  };
}
