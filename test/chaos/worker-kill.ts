/**
 * A worker holding runs killed with SIGKILL (`--kills`); a fresh worker is
 * started at once. Resolves once the runs it held ran again on another
 * worker (or the wait passed).
 */
import type { FaultContext, Injected } from "./fault-context.js";
import { type AimedWorker, replace } from "./live-targets.js";
import { ranAgainElsewhere } from "./worker-holdings.js";

/** Kills the aimed worker, starts its replacement, follows its runs until they ran elsewhere. */
export async function killWorker(
  context: FaultContext,
  { victim, held }: AimedWorker,
): Promise<Injected> {
  await victim.signal("SIGKILL");
  // The replacement starts beside the survivors; the take-over does not wait for it.
  replace(context.cluster.addWorker());
  const takenOverAt = await ranAgainElsewhere(context.errand, held, context.recoveryTimeoutMs);
  return {
    target: victim.name,
    held: held.size,
    ...(takenOverAt === undefined ? {} : { takenOverAt }),
  };
}
