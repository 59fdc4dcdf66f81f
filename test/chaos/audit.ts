/**
 * The audit after the dust settled: every fired run (and every child a parent
 * spawned) is read back — its log and its stored result — and checked; then
 * every run Redis holds: none may be left unsettled without a job, and none
 * may be one that nobody was told of (a refused fire must leave nothing).
 */
import { foldRun, type RunEvent, type RunResult, settleRun } from "@errand/core";
import type { Errand } from "@errand/engine";
import { Cluster, type Redis } from "ioredis";
import { historyProblems } from "./history.js";
import type { FiredRun } from "./workload.js";

/** Whether a run has a job in the chaos queue, in any state. */
export type HasJob = (runId: string) => Promise<boolean>;

/** What the audit found. */
export interface AuditFindings {
  /** Runs fired by the workload. */
  fired: number;
  /** Children the parents spawned (audited too). */
  children: number;
  /** Fired runs and children with a stored result. */
  settled: number;
  /** Runs with no stored result (must be 0). */
  lost: string[];
  /** Runs whose log holds more than one terminal event (must be 0). */
  duplicateTerminal: string[];
  /** Runs whose log holds more than one `output-recorded` (must be 0). */
  duplicateOutput: string[];
  /** Runs whose log is not one consistent history (a step or a result twice, …: see `history.ts`) (must be 0). */
  inconsistentHistory: { runId: string; problems: string[] }[];
  /** Fired runs that settled with a status other than the one they must (must be 0). */
  wrongStatus: { runId: string; expected: string; actual: string; error?: string }[];
  /** Runs whose stored result's status or attempts differ from the fold of their log (must be 0). */
  resultDiffersFromLog: string[];
  /** Parent runs without a stored result (must be 0). */
  parentsWaiting: string[];
  /** Runs settled `failed` because of Redis (a lost worker, an internal error, Redis out of memory or away) (must be 0). */
  failedForRedis: string[];
  /** Runs Redis holds that are not settled and have no job: nobody would ever run them (must be 0). */
  orphaned: string[];
  /** Runs Redis holds that no fire answered with and no parent spawned: left behind by a refused fire (must be 0). */
  leftBehind: string[];
  /** `bump` calls whose side effect ran more than once. */
  repeatedSideEffects: number;
  /** How the stored results' statuses and error codes add up. */
  outcomes: Record<string, number>;
}

const TERMINAL = new Set(["finished", "failed", "cancelled"]);

/** The error codes of a run failed because of Redis rather than by design. */
const REDIS_FAILURE_CODES = new Set([
  "internal",
  "worker_lost",
  "redis_unavailable",
  "redis_out_of_memory",
]);

function failedForRedis(result: RunResult): boolean {
  const { error } = result;
  if (result.status !== "failed" || error === undefined) return false;
  return REDIS_FAILURE_CODES.has(error.code) || /out of memory|\bOOM\b/i.test(error.message);
}

/** Every key matching `pattern`, on every master of a cluster. */
async function scanKeys(redis: Redis | Cluster, pattern: string): Promise<string[]> {
  const servers = redis instanceof Cluster ? redis.nodes("master") : [redis];
  const found: string[] = [];
  for (const server of servers) {
    let cursor = "0";
    do {
      const [next, keys] = await server.scan(cursor, "MATCH", pattern, "COUNT", 500);
      cursor = next;
      found.push(...keys);
    } while (cursor !== "0");
  }
  return found;
}

/** The runIds of every run head under `prefix` (not their logs or blobs). */
export async function runsInRedis(redis: Redis | Cluster, prefix: string): Promise<string[]> {
  return (await scanKeys(redis, `${prefix}:{s*}:run:*`))
    .map((key) => key.slice(key.lastIndexOf(":run:") + ":run:".length))
    .filter((runId) => !runId.includes(":"));
}

/** Looks at every run Redis holds: orphaned (unsettled, no job) or left behind (nobody was told of it). */
async function auditRunsInRedis(
  errand: Errand,
  redis: Redis | Cluster,
  prefix: string,
  accepted: ReadonlySet<string>,
  hasJob: HasJob,
  findings: AuditFindings,
): Promise<void> {
  for (const runId of await runsInRedis(redis, prefix)) {
    if (!accepted.has(runId)) findings.leftBehind.push(runId);
    const head = await errand.store.readHead(runId);
    if (head !== undefined && head.settledAt === undefined && !(await hasJob(runId))) {
      findings.orphaned.push(runId);
    }
  }
}

/** The log of run `runId`, read to its end. */
export async function readLog(errand: Errand, runId: string): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const event of errand.events(runId)) events.push(event);
  return events;
}

/** The runIds a parent's `spawn_agents` results name. */
function spawnedChildren(events: readonly RunEvent[]): string[] {
  const children = new Set<string>();
  for (const event of events) {
    if (event.type !== "tool-result" || !event.data.ok) continue;
    const results = (event.data.result as { results?: unknown } | undefined)?.results;
    if (!Array.isArray(results)) continue;
    for (const item of results as { runId?: unknown }[]) {
      if (typeof item.runId === "string") children.add(item.runId);
    }
  }
  return [...children];
}

/** How many `bump` calls ran their side effect more than once under `prefix`. */
async function countRepeatedSideEffects(redis: Redis | Cluster, prefix: string): Promise<number> {
  const keys = await scanKeys(redis, `${prefix}:chaos:bump:*`);
  // One key at a time: on a cluster the counters lie in different slots.
  const counts = await Promise.all(keys.map((key) => redis.get(key)));
  return counts.filter((count) => Number(count) > 1).length;
}

/** Findings of an audit of `fired` runs before it has looked at any: nothing counted, nothing found. */
export function noFindings(fired: number, repeatedSideEffects: number): AuditFindings {
  return {
    fired,
    children: 0,
    settled: 0,
    lost: [],
    duplicateTerminal: [],
    duplicateOutput: [],
    inconsistentHistory: [],
    wrongStatus: [],
    resultDiffersFromLog: [],
    parentsWaiting: [],
    failedForRedis: [],
    orphaned: [],
    leftBehind: [],
    repeatedSideEffects,
    outcomes: {},
  };
}

/** Audits `fired` and the children they spawned, then every run Redis holds under `prefix`. */
export async function audit(
  errand: Errand,
  redis: Redis | Cluster,
  prefix: string,
  fired: readonly FiredRun[],
  hasJob: HasJob,
): Promise<AuditFindings> {
  const findings = noFindings(fired.length, await countRepeatedSideEffects(redis, prefix));
  const accepted = new Set<string>();
  const check = async (runId: string): Promise<{ events: RunEvent[]; result?: RunResult }> => {
    accepted.add(runId);
    const events = await readLog(errand, runId);
    const result = await errand.result(runId);
    if (result === undefined) findings.lost.push(runId);
    else {
      if (failedForRedis(result)) findings.failedForRedis.push(runId);
      findings.settled += 1;
      const outcome = result.error ? `${result.status}:${result.error.code}` : result.status;
      findings.outcomes[outcome] = (findings.outcomes[outcome] ?? 0) + 1;
      const folded = settleRun(foldRun(events));
      if (folded?.status !== result.status || folded.attempts !== result.attempts) {
        findings.resultDiffersFromLog.push(runId);
      }
    }
    if (events.filter((event) => TERMINAL.has(event.type)).length > 1) {
      findings.duplicateTerminal.push(runId);
    }
    if (events.filter((event) => event.type === "output-recorded").length > 1) {
      findings.duplicateOutput.push(runId);
    }
    const problems = historyProblems(events);
    if (problems.length > 0) findings.inconsistentHistory.push({ runId, problems });
    return result === undefined ? { events } : { events, result };
  };
  for (const run of fired) {
    const { events, result } = await check(run.runId);
    if (result !== undefined && result.status !== run.expected) {
      findings.wrongStatus.push({
        runId: run.runId,
        expected: run.expected,
        actual: result.status,
        ...(result.error ? { error: `${result.error.code}: ${result.error.message}` } : {}),
      });
    }
    if (run.kind !== "parent") continue;
    if (result === undefined) findings.parentsWaiting.push(run.runId);
    const children = spawnedChildren(events);
    findings.children += children.length;
    for (const child of children) await check(child);
  }
  await auditRunsInRedis(errand, redis, prefix, accepted, hasJob, findings);
  return findings;
}
