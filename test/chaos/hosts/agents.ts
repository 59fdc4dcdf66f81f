/**
 * The agents module of the hosts' workers (`errand worker --agents`): the
 * chaos agents, their `bump` tool counting on the Redis of `REDIS_URL` under
 * `ERRAND_PREFIX`.
 */
import { Redis } from "ioredis";
import { chaosAgents } from "../chaos-agents.js";
import { requiredEnv } from "../environment.js";

const redis = new Redis(requiredEnv("REDIS_URL"), { maxRetriesPerRequest: null });
// While the host's cable is out the client waits for Redis; its connection errors are expected.
redis.on("error", () => undefined);

/** What `errand worker --agents` loads. */
export const agents = chaosAgents(redis, requiredEnv("ERRAND_PREFIX"));
