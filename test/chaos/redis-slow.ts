/**
 * Redis slowed (`--slowdowns`): every client (workers, collectors, the
 * harness's own) reaches Redis through the harness's latency proxy
 * (`latency-proxy.ts`), which for `--slow-ms` holds each chunk of bytes
 * `--latency-ms` each way before passing it on; then the latency is taken off.
 */
import { ErrandError } from "@errand/core";
import type { FaultContext, Injected } from "./fault-context.js";
import { sleep } from "./fault-context.js";

/** Adds the latency for the spell, then takes it off. */
export async function slowRedis(context: FaultContext): Promise<Injected> {
  const { redis } = context.cluster;
  const proxy = redis.kind === "server" ? redis.proxy : undefined;
  if (proxy === undefined) {
    throw new ErrandError("invalid_spec", "a slowdown needs the latency proxy (one redis-server)");
  }
  proxy.setLatency(context.latencyMs);
  const slowedAt = Date.now();
  try {
    await sleep(context.spellMs.slow);
  } finally {
    proxy.setLatency(0);
  }
  return { target: `proxy +${context.latencyMs} ms each way`, heldMs: Date.now() - slowedAt };
}
