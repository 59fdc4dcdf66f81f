/**
 * Redis frozen (`--redis-freezes`): its process stopped with SIGSTOP for
 * `--freeze-ms`, then resumed with SIGCONT. Its connections stay open and
 * every command waits; a freeze past the job lock lets locks lapse, so a
 * stalled check hands runs to other workers once it resumes.
 */
import type { FaultContext, Injected } from "./fault-context.js";
import { sleep } from "./fault-context.js";
import { infoField, singleServer } from "./redis-faults.js";

/** Stops Redis for the freeze's spell, then resumes it. */
export async function freezeRedis(context: FaultContext): Promise<Injected> {
  singleServer(context);
  const pid = Number(await infoField(context.admin, "server", "process_id"));
  process.kill(pid, "SIGSTOP");
  const stoppedAt = Date.now();
  try {
    await sleep(context.spellMs.freeze);
  } finally {
    process.kill(pid, "SIGCONT");
  }
  return { target: `redis-server pid ${pid}`, heldMs: Date.now() - stoppedAt };
}
