/**
 * Redis out of memory (`--oom`): its `maxmemory` (policy `noeviction`)
 * lowered to 32 KiB above the memory it uses, so it soon refuses every write
 * that may grow memory, for `--oom-ms`, then set back.
 */
import type { FaultContext, Injected } from "./fault-context.js";
import { sleep } from "./fault-context.js";
import { configValue, infoField, singleServer } from "./redis-faults.js";

/** How far above the memory Redis uses its `maxmemory` is set: it runs out within moments. */
const OOM_HEADROOM_BYTES = 32 * 1024;

/** Lowers Redis's `maxmemory` for the spell, then sets it back. */
export async function exhaustRedisMemory(context: FaultContext): Promise<Injected> {
  singleServer(context);
  const { admin } = context;
  const previous = await configValue(admin, "maxmemory");
  const used = Number(await infoField(admin, "memory", "used_memory"));
  await admin.config("SET", "maxmemory", String(used + OOM_HEADROOM_BYTES));
  const loweredAt = Date.now();
  try {
    await sleep(context.spellMs.oom);
  } finally {
    await admin.config("SET", "maxmemory", previous);
  }
  return { target: "redis-server", heldMs: Date.now() - loweredAt };
}
