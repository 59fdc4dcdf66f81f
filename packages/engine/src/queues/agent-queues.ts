/**
 * The name of the BullMQ queue of a set of agents. Workers that run the same
 * agents share one queue, and workers that run different sets never do, so a
 * job is only ever taken by a worker that runs its agent, whatever else runs
 * on the same Redis. The name starts with the key prefix, so that queue
 * dashboards (bull-board, …) tell two deployments on one Redis apart.
 */
import { createHash } from "node:crypto";
import { DEFAULT_QUEUE_SHARDS, withShardCount } from "./queue-shards.js";

/** The longest label made of the agents' names alone; longer sets get a digest. */
const MAX_LABEL_LENGTH = 64;

/**
 * `<prefix>.<label>`: the label is the sorted agent names joined by `,`
 * (`errand.greeter`, `errand.lead,researcher`), or, when that would be long,
 * the first name, how many others and a digest of them all
 * (`errand.analyst,11-more.3f9c2a7b41`). `:` in the prefix becomes `.` (BullMQ
 * refuses `:` in queue names). A comma, unlike `+`, reads the same in a URL's
 * query string, where queue dashboards put queue names. A queue of several
 * shards (`shards` > 1, see `queue-shards.ts`) ends in `~<shards>`
 * (`errand.greeter~3`).
 */
export function queueOfAgents(
  prefix: string,
  agents: readonly string[],
  shards: number = DEFAULT_QUEUE_SHARDS,
): string {
  const names = [...new Set(agents)].sort();
  if (names.length === 0) throw new Error("a queue serves at least one agent");
  const joined = names.join(",");
  const label =
    joined.length <= MAX_LABEL_LENGTH
      ? joined
      : `${names[0]},${names.length - 1}-more.${createHash("sha256").update(joined).digest("hex").slice(0, 10)}`;
  return withShardCount(`${prefix.replaceAll(":", ".")}.${label}`, shards);
}
