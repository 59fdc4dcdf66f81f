/**
 * The services one caller's tools act through: the errand client narrowed
 * to what its grant allows (`grantedErrand`: its scopes, its agents, its
 * tenant's runs alone) and the agents it may fire. Loopback and stdio act
 * with `LOOPBACK_GRANT`, a key with its own.
 */
import {
  type AccessGrant,
  type EngineKeys,
  type Errand,
  grantedErrand,
  type RedisConnection,
} from "@errand/engine";
import type { Logger } from "@errand/runtime";
import { readAgentCatalog } from "../agents/agent-catalog.js";
import type { ReportUnexpected } from "../results/tool-answer.js";
import type { ErrandMcpServices } from "./errand-services.js";

/** What every caller's services share. */
export interface SharedServices {
  errand: Errand;
  /** The connection the agent registry is read on. */
  registry: RedisConnection;
  /** Where writes made through a key are logged (with its id, never the key). */
  logger: Logger;
  reportUnexpected: ReportUnexpected;
}

/** The services of a caller holding `grant`. */
export function grantedServices(shared: SharedServices, grant: AccessGrant): ErrandMcpServices {
  const keys: EngineKeys = shared.errand.keys;
  return {
    errand: grantedErrand(shared.errand, grant, { logger: shared.logger }),
    async agents() {
      const agents = await readAgentCatalog(shared.registry, keys);
      const allowed = grant.agents;
      return allowed === undefined
        ? agents
        : agents.filter((agent) => allowed.includes(agent.name));
    },
    reportUnexpected: shared.reportUnexpected,
  };
}
