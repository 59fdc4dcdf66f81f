/**
 * Runs that wait for a worker: a queue none of whose workers is live (no
 * heartbeat for three beats, or its last worker closed) while runs wait in
 * it. They are not lost — they run once a worker of their agent starts — but
 * nothing happens to them until then, so doctor names them.
 */
import {
  type EngineKeys,
  type QueueRegistration,
  type RedisConnection,
  readQueueRegistrations,
} from "@errand/engine";
import { isLive, readQueueBacklog } from "@errand/engine/ops";

import { type DoctorCheck, passed, problem } from "./check.js";

const NAME = "runs waiting for a worker";

/** `12:04:31 UTC` of an ISO instant. */
function clockTime(iso: string): string {
  return `${new Date(iso).toISOString().slice(11, 19)} UTC`;
}

/** What waits in one queue without a live worker, as a sentence; `undefined` when nothing does. */
async function describeStranded(
  redis: RedisConnection,
  keys: EngineKeys,
  record: QueueRegistration,
): Promise<string | undefined> {
  const backlog = await readQueueBacklog(redis, keys, record.queue);
  if (backlog.waiting + backlog.delayed === 0) return undefined;
  const runs = Object.entries(backlog.byAgent)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([agent, count]) => `${count} run${count === 1 ? "" : "s"} of ${agent}`)
    .join(", ");
  return `${runs} waiting in ${record.queue}, no live worker since ${clockTime(record.lastSeenAt)}`;
}

/** Every queue with runs waiting has a live worker. */
export async function checkWaitingRuns(
  redis: RedisConnection,
  keys: EngineKeys,
  now: Date,
): Promise<DoctorCheck> {
  const records = await readQueueRegistrations(redis, keys);
  if (records.length === 0) return passed(NAME, "no queue registered yet");
  const idle = records.filter((record) => !isLive(record, now));
  const stranded: string[] = [];
  const agents = new Set<string>();
  for (const record of idle) {
    const sentence = await describeStranded(redis, keys, record);
    if (sentence === undefined) continue;
    stranded.push(sentence);
    for (const agent of record.agents) agents.add(agent);
  }
  if (stranded.length > 0) {
    return problem(
      NAME,
      stranded.join("; "),
      `start a worker that runs ${[...agents].sort().join(", ")} (errand worker --agents <module>): within a heartbeat it takes over the runs of the agents it runs`,
    );
  }
  const live = records.length - idle.length;
  return passed(
    NAME,
    `${live} of ${records.length} queues have a live worker; no run waits in the others`,
  );
}
