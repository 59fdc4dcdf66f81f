/**
 * Redis brought down and started again on its AOF: shut down cleanly with
 * SIGTERM, which flushes the AOF (`--redis-restarts`), or killed with
 * SIGKILL (`--redis-kills`), which loses what `appendfsync everysec` had
 * not yet written (up to about a second of acknowledged writes). Every
 * process reconnects by itself.
 */
import type { FaultContext, Injected } from "./fault-context.js";
import { singleServer } from "./redis-faults.js";

/** Brings Redis down with `signal` and starts it again on its AOF. */
export async function restartRedis(
  context: FaultContext,
  signal: "SIGTERM" | "SIGKILL",
): Promise<Injected> {
  const server = singleServer(context);
  await server.kill(signal);
  await server.restart();
  return { target: `redis-server (${signal})` };
}
