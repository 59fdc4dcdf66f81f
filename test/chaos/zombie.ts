/**
 * A worker holding runs stopped with SIGSTOP (`--zombies`) until other
 * workers started every run it held (or the wait passed), then resumed with
 * SIGCONT: its next fenced append is refused. While stopped it is out of the
 * pool, so no other fault strikes it; resumed, it goes back, and a later
 * zombie stops another worker while one that was never stopped is busy.
 */

import type { ChaosProcess } from "./chaos-process.js";
import type { FaultContext, Injected } from "./fault-context.js";
import type { AimedWorker } from "./live-targets.js";
import { ranAgainElsewhere } from "./worker-holdings.js";

/** The workers stopped so far: a zombie aims at another while one is busy. */
export const stoppedOnce = new Set<ChaosProcess>();

/** Stops the aimed worker until its runs ran elsewhere, resumes it and puts it back in the pool. */
export async function stopWorker(
  context: FaultContext,
  { victim, held }: AimedWorker,
): Promise<Injected> {
  stoppedOnce.add(victim);
  await victim.signal("SIGSTOP");
  const takenOverAt = await ranAgainElsewhere(context.errand, held, context.takeOverTimeoutMs);
  await victim.signal("SIGCONT");
  if (victim.alive()) context.cluster.workers.push(victim);
  return {
    target: victim.name,
    held: held.size,
    ...(takenOverAt === undefined ? {} : { takenOverAt }),
  };
}
