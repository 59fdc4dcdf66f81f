/**
 * Redis out of connections (`--maxclients`): its `maxclients` lowered to
 * half the connections it holds, then every client connection dropped
 * (`CLIENT KILL`, the harness's admin connection spared), so only half of
 * them get back in: the others are refused (`ERR max number of clients
 * reached`) for `--maxclients-ms`, then `maxclients` is set back.
 */
import type { FaultContext, Injected } from "./fault-context.js";
import { sleep } from "./fault-context.js";
import { configValue, infoField, singleServer } from "./redis-faults.js";

/** Lowers `maxclients`, drops the clients, holds for the spell, sets it back; counts the connections refused. */
export async function exhaustRedisClients(context: FaultContext): Promise<Injected> {
  singleServer(context);
  const { admin } = context;
  const previous = await configValue(admin, "maxclients");
  const connected = Number(await infoField(admin, "clients", "connected_clients"));
  const refusedBefore = Number(await infoField(admin, "stats", "rejected_connections"));
  const limit = Math.max(2, Math.ceil(connected / 2));
  await admin.config("SET", "maxclients", String(limit));
  const loweredAt = Date.now();
  try {
    await admin.client("KILL", "TYPE", "normal", "SKIPME", "yes");
    await admin.client("KILL", "TYPE", "pubsub", "SKIPME", "yes");
    await sleep(context.spellMs.maxclients);
  } finally {
    await admin.config("SET", "maxclients", previous);
  }
  const refusedAfter = Number(await infoField(admin, "stats", "rejected_connections"));
  return {
    target: `redis-server (${limit} of ${connected} clients)`,
    heldMs: Date.now() - loweredAt,
    connectionsRefused: refusedAfter - refusedBefore,
  };
}
