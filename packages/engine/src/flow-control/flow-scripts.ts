/**
 * The Lua scripts of flow control, defined on a client: concurrency leases
 * (`flow-leases-n.lua`), fair queues (`fair-queue-1.lua`) and provider rate
 * limits (`provider-rate-2.lua`). Each runs on Redis' clock, shared by every worker.
 */
import { defineLuaCommand, type LuaCall, type RedisClient, readLuaFile } from "@errand/store/ops";

/** The flow-control scripts of one client. */
export interface FlowScripts {
  leases: LuaCall;
  fairQueue: LuaCall;
  providerRate: LuaCall;
}

function script(file: string): string {
  return readLuaFile(new URL(`../../lua/${file}`, import.meta.url));
}

const defined = new WeakMap<RedisClient, FlowScripts>();

/** The flow-control scripts on `redis`, defined on first use. */
export function flowScripts(redis: RedisClient): FlowScripts {
  let scripts = defined.get(redis);
  if (scripts === undefined) {
    scripts = defineFlowScripts(redis);
    defined.set(redis, scripts);
  }
  return scripts;
}

function defineFlowScripts(redis: RedisClient): FlowScripts {
  return {
    leases: defineLuaCommand(redis, {
      command: "errandFlowLeases",
      lua: script("flow-leases-n.lua"),
      numberOfKeys: "variable",
    }),
    fairQueue: defineLuaCommand(redis, {
      command: "errandFairQueue",
      lua: script("fair-queue-1.lua"),
      numberOfKeys: 1,
    }),
    providerRate: defineLuaCommand(redis, {
      command: "errandProviderRate",
      lua: script("provider-rate-2.lua"),
      numberOfKeys: 2,
    }),
  };
}
