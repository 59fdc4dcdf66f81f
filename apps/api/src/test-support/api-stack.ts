/**
 * A whole errand behind the API, in this process, for the API's tests: a
 * private Redis, a worker running the test agents, a collector, and an API
 * server on a free loopback port. `stop` closes them in order. Test-only:
 * not exported.
 */
import { createCollector, createWorker } from "@errand/engine";
import type { Agent } from "@errand/runtime";
import { noopLogger } from "@errand/runtime/ops";
import { type RedisServer, startRedis, uniqueKeyPrefix } from "@errand/testing";
import { createHttpApi, type HttpApi } from "../create-api.js";
import type { HttpApiOptions } from "../options.js";
import { apiTestAgents } from "./agents.js";

/** A running stack. */
export interface ApiStack {
  /** The API's URL, `http://127.0.0.1:<port>`. */
  url: string;
  /** The private Redis (to give it a replica, say). */
  redis: RedisServer;
  redisUrl: string;
  prefix: string;
  api: HttpApi;
  stop(): Promise<void>;
}

/** Starts Redis, a worker running `agents`, a collector and the API (`apiOptions` beside the defaults). */
export async function startApiStack(
  apiOptions: Partial<HttpApiOptions> = {},
  agents: Agent[] = apiTestAgents(),
): Promise<ApiStack> {
  const redis = await startRedis();
  const prefix = uniqueKeyPrefix("api");
  const shared = { connection: redis.url, prefix, logger: noopLogger };
  const worker = await createWorker({ ...shared, agents, concurrency: 8 });
  const collector = createCollector(shared);
  await collector.start();
  const api = await createHttpApi({ ...shared, port: 0, ...apiOptions });
  return {
    url: api.url,
    redis,
    redisUrl: redis.url,
    prefix,
    api,
    async stop() {
      await api.close();
      await worker.close({ graceMs: 0 });
      await collector.stop();
      await redis.stop();
    },
  };
}
