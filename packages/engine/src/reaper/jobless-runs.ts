/**
 * Runs left queued without a job. `fire` writes a run's `run-queued` before
 * its job, and takes the run back when the job cannot be enqueued (see
 * `client/unenqueued-runs.ts`); a producer that dies between the two, or
 * cannot reach Redis to take the run back, leaves a run that no worker will
 * ever start. The reaper enqueues its job (docs/architecture/collector.md): once a
 * run has been queued for `joblessAfterMs` (a producer enqueues within
 * milliseconds of writing), it is looked at once, in creation order through
 * its shard's index of active runs; a run still queued that no queue of its
 * agent holds a job for gets one, in the queue `fire` would choose, with the
 * priority it was fired with or, for a run of a concurrency key fired without
 * one, its place in its key's fair queue (kept while it waits there, so it
 * is not sent behind the key's later runs; see `flow-control/fair-queue.ts`).
 * Whether it has a job is one `EXISTS` of the job's hash a queue
 * (`hasRunJob`), so a look costs the same however many jobs wait: a
 * fan-out's children, queued past `joblessAfterMs` behind each other, are
 * each looked at once, at a flat cost, a batch of runs in one round trip.
 * Its concurrency key itself is in its log, where workers read it. Adding a
 * job twice is harmless: its id is the runId, and the log's fence lets one
 * attempt write.
 */
import type { RunHead } from "@errand/store";
import { runIdOfIndexMember, runIndexMember } from "@errand/store/ops";
import { fairPriorities } from "../flow-control/fair-queue.js";
import {
  type AgentRegistration,
  chooseRegistration,
  readAgentRegistrations,
} from "../queues/registry.js";
import { hasRunJob } from "../queues/run-jobs.js";
import type { ReaperContext } from "./context.js";

/** Where each shard's look at its active runs has got to: the last index member looked at. */
export type JoblessCursors = Map<number, string>;

/** Whether a queue of `agent` holds a job of run `runId` (in any state). */
async function hasJob(context: ReaperContext, queues: readonly string[], runId: string) {
  for (const name of queues) {
    if (await hasRunJob(context.redis, context.queues.ofRun(name, runId), runId)) return true;
  }
  return false;
}

/**
 * Enqueues the job of run `runId`, found without one, in the queue `fire`
 * would choose; true when it did. Its head is read again first: a run that
 * settled since its batch was read (its job gone with it) gets none.
 */
async function enqueueJobless(
  context: ReaperContext,
  runId: string,
  registrations: readonly AgentRegistration[],
): Promise<boolean> {
  const head = await context.store.readHead(runId);
  if (head?.status !== "queued") return false;
  const registration = chooseRegistration(registrations, context.now());
  if (registration === undefined) return false;
  const { agent } = head;
  const fair = await fairPriorities(context.redis, context.keys.prefix, [head]);
  const priority = head.priority ?? fair.get(runId);
  await context.queues.add(registration.queue, [
    { runId, agent, ...(priority === undefined ? {} : { priority }) },
  ]);
  context.logger.warn(
    { runId, agent, queue: registration.queue },
    "a run left queued without a job was enqueued",
  );
  return true;
}

/**
 * Looks at the runs `runIds` together, enqueueing the job of each one still
 * queued with none; resolves with how many it enqueued. Their heads, then
 * their jobs, are read in one go each (a round trip a batch, not three a
 * run, so a fan-out's children queued past `joblessAfterMs` do not hold the
 * reaper's process for a round trip each), and each agent's registrations
 * once.
 */
async function enqueueIfJobless(context: ReaperContext, runIds: readonly string[]) {
  const heads = await Promise.all(runIds.map((runId) => context.store.readHead(runId)));
  const queued = heads.filter((head): head is RunHead => head?.status === "queued");
  const registrations = new Map<string, Promise<AgentRegistration[]>>();
  const registrationsOf = (agent: string) => {
    let read = registrations.get(agent);
    if (read === undefined) {
      read = readAgentRegistrations(context.redis, context.keys, agent);
      registrations.set(agent, read);
    }
    return read;
  };
  const looks = await Promise.all(
    queued.map(async (head) => {
      const agentRegistrations = await registrationsOf(head.agent);
      const queues = agentRegistrations.map(({ queue }) => queue);
      const held = await hasJob(context, queues, head.runId);
      return { head, agentRegistrations, held };
    }),
  );
  let enqueued = 0;
  for (const { head, agentRegistrations, held } of looks) {
    if (!held && (await enqueueJobless(context, head.runId, agentRegistrations))) enqueued += 1;
  }
  return enqueued;
}

/**
 * Looks at the active runs of `shard` created since the last look and
 * `joblessAfterMs` ago or earlier, `batchSize` at a time, enqueueing the
 * jobless ones; resolves with how many it enqueued. A batch that cannot be
 * looked at ends the look: it is looked at again next time (enqueueing a
 * job twice adds nothing).
 */
export async function enqueueJoblessRuns(
  context: ReaperContext,
  shard: number,
  joblessAfterMs: number,
  cursors: JoblessCursors,
): Promise<number> {
  const { redis, keys, batchSize, now } = context;
  const until = runIndexMember(new Date(now().getTime() - joblessAfterMs).toISOString(), "");
  let enqueued = 0;
  for (;;) {
    const after = cursors.get(shard);
    const members = await redis.zrangebylex(
      keys.runIndexByStatus(shard, "active"),
      after === undefined ? "-" : `(${after}`,
      `(${until}`,
      "LIMIT",
      0,
      batchSize,
    );
    enqueued += await enqueueIfJobless(context, members.map(runIdOfIndexMember));
    const last = members.at(-1);
    if (last !== undefined) cursors.set(shard, last);
    if (members.length < batchSize) return enqueued;
  }
}
