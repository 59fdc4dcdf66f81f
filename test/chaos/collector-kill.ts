/**
 * A running collector killed with SIGKILL (`--collector-kills`), mid-batch
 * or not; a fresh collector is started at once.
 */
import type { ChaosProcess } from "./chaos-process.js";
import type { FaultContext, Injected } from "./fault-context.js";
import { replace } from "./live-targets.js";

/** Kills the aimed collector and starts its replacement. */
export async function killCollector(
  context: FaultContext,
  victim: ChaosProcess,
): Promise<Injected> {
  await victim.signal("SIGKILL");
  replace(context.cluster.addCollector());
  return { target: victim.name };
}
