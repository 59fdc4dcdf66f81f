/**
 * The lookups of one `fire` or `fireMany` call, each made at most once per
 * call: a batch of specs for the same agent or parent reads its registration
 * or head once, and the reads of one batch leave in the same round trip.
 */
import type { RunBudget } from "@errand/core";
import type { EventStore, RunHead } from "@errand/store";
import { readScopeSpend, type ScopeSpend } from "../budgets/tree-budget.js";
import type { EngineKeys } from "../engine-keys.js";
import {
  type AgentRegistration,
  readAgentRegistrations,
  readRegisteredAgents,
} from "../queues/registry.js";
import type { RedisConnection } from "../redis/connection.js";
import type { PreflightLookups } from "./fire-preflight.js";

/** What `loaded` holds for `key`, else `load()`, kept there. */
function loadOnce<T>(loaded: Map<string, Promise<T>>, key: string, load: () => Promise<T>) {
  let value = loaded.get(key);
  if (value === undefined) {
    value = load();
    loaded.set(key, value);
  }
  return value;
}

/** The budgets run `runId` counts against, read from its `run-queued` (its first event). */
async function queuedBudget(store: EventStore, runId: string): Promise<RunBudget | undefined> {
  const [first] = await store.readLog(runId, { count: 1 });
  return first?.type === "run-queued" ? first.data.budget : undefined;
}

/**
 * The lookups of one call. Each lookup's map is made at its first read: a
 * `fire` makes one or two of them, and makes its lookups every call (one
 * object, not a function a lookup).
 */
class CallLookups implements PreflightLookups {
  private registrationsRead: Map<string, Promise<readonly AgentRegistration[]>> | undefined;
  private headsRead: Map<string, Promise<RunHead | undefined>> | undefined;
  private budgetsRead: Map<string, Promise<RunBudget | undefined>> | undefined;
  private spendsRead: Map<string, Promise<ScopeSpend>> | undefined;

  constructor(
    private readonly redis: RedisConnection,
    private readonly keys: EngineKeys,
    private readonly store: EventStore,
  ) {}

  registrations(agent: string): Promise<readonly AgentRegistration[]> {
    this.registrationsRead ??= new Map();
    return loadOnce(this.registrationsRead, agent, () =>
      readAgentRegistrations(this.redis, this.keys, agent),
    );
  }

  registeredAgents(): Promise<string[]> {
    return readRegisteredAgents(this.redis, this.keys);
  }

  head(runId: string): Promise<RunHead | undefined> {
    this.headsRead ??= new Map();
    return loadOnce(this.headsRead, runId, () => this.store.readHead(runId));
  }

  budgetOf(runId: string): Promise<RunBudget | undefined> {
    this.budgetsRead ??= new Map();
    return loadOnce(this.budgetsRead, runId, () => queuedBudget(this.store, runId));
  }

  /** A function of its own (preflight hands it on alone), bound to these lookups. */
  readonly scopeSpend = (treeRunId: string, scopeRunId: string): Promise<ScopeSpend> => {
    this.spendsRead ??= new Map();
    return loadOnce(this.spendsRead, `${treeRunId} ${scopeRunId}`, () =>
      readScopeSpend(this.redis, this.keys, treeRunId, scopeRunId),
    );
  };
}

/** Lookups on `redis` for one call: registrations from the agent registry, heads from the store. */
export function createPreflightLookups(
  redis: RedisConnection,
  keys: EngineKeys,
  store: EventStore,
): PreflightLookups {
  return new CallLookups(redis, keys, store);
}
