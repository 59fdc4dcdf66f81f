/**
 * The API alone on a private Redis — no worker, no collector: for tests
 * that must see that nothing is written. Test-only: not exported.
 */
import { noopLogger } from "@errand/runtime/ops";
import { startRedis, uniqueKeyPrefix } from "@errand/testing";
import { Redis } from "ioredis";
import { createHttpApi } from "../create-api.js";

/** A running API with a connection of its own to count the Redis's keys. */
export interface ApiOnly {
  url: string;
  /** How many keys the Redis holds. */
  keyCount(): Promise<number>;
  stop(): Promise<void>;
}

/** Starts Redis and the API on a free loopback port. */
export async function startApiOnly(): Promise<ApiOnly> {
  const server = await startRedis();
  const api = await createHttpApi({
    connection: server.url,
    prefix: uniqueKeyPrefix("api-bad"),
    logger: noopLogger,
    port: 0,
  });
  const counter = new Redis(server.url);
  return {
    url: api.url,
    keyCount: () => counter.dbsize(),
    async stop() {
      counter.disconnect();
      await api.close();
      await server.stop();
    },
  };
}
