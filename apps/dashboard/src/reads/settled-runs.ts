/**
 * Which runs settled when, for the overview's rates. The run indexes sort
 * runs by creation time, not settlement, so the recently settled runs are
 * found among the runs created in the last {@link SETTLED_LOOKBACK_MS} in
 * each shard's settled-status indexes (at most {@link SETTLED_SCAN_PER_KEY}
 * per index), and their heads say when they settled. A settled run never
 * changes, so each head is read once and remembered while the run stays
 * in the lookback. A run that took longer than the lookback to settle is
 * not counted.
 */
import type { SettledStatus } from "@errand/core";
import type { DashboardContext } from "../context.js";

/** How far back in creation time settled runs are looked for: one hour. */
const SETTLED_LOOKBACK_MS = 60 * 60 * 1_000;

/** The most members read of one settled-status index of one shard per refresh. */
const SETTLED_SCAN_PER_KEY = 2_000;

/** The settled statuses. */
const SETTLED_STATUSES: readonly SettledStatus[] = ["succeeded", "failed", "cancelled"];

/** One settled run, as far as the rates need it. */
export interface SettledRun {
  runId: string;
  agent: string;
  status: SettledStatus;
  createdAtMs: number;
  settledAtMs: number;
}

/** Remembers the settled runs of the lookback, refreshed on demand. */
export interface SettledRuns {
  /** Reads the runs settled since the last refresh and forgets those past the lookback. */
  refresh(nowMs: number): Promise<readonly SettledRun[]>;
}

const MEMBER_TIME_DIGITS = 15;

/** The index member bound at `ms`: index members are `<createdAt ms, 15 digits>:<runId>`. */
function memberBound(ms: number): string {
  return String(Math.max(0, Math.floor(ms))).padStart(MEMBER_TIME_DIGITS, "0");
}

function runIdOfMember(member: string): string {
  return member.slice(MEMBER_TIME_DIGITS + 1);
}

/** Settled runs of `context`'s deployment. */
export function createSettledRuns(context: DashboardContext): SettledRuns {
  const known = new Map<string, SettledRun>();
  const shards = Array.from({ length: context.options.shards }, (_, shard) => shard);

  async function membersSince(sinceMs: number): Promise<string[]> {
    return context.patiently("read of the settled runs", () => settledMembersSince(sinceMs));
  }

  async function settledMembersSince(sinceMs: number): Promise<string[]> {
    const perKey = await Promise.all(
      shards.flatMap((shard) =>
        SETTLED_STATUSES.map((status) =>
          context.redis.zrange(
            context.keys.runIndexByStatus(shard, status),
            "+",
            `[${memberBound(sinceMs)}`,
            "BYLEX",
            "REV",
            "LIMIT",
            0,
            SETTLED_SCAN_PER_KEY,
          ),
        ),
      ),
    );
    return perKey.flat();
  }

  async function learn(runId: string): Promise<void> {
    const head = await context.errand.store.readHead(runId);
    if (head?.settledAt === undefined) return;
    const status = head.status as SettledStatus;
    known.set(runId, {
      runId,
      agent: head.agent,
      status,
      createdAtMs: Date.parse(head.createdAt),
      settledAtMs: Date.parse(head.settledAt),
    });
  }

  return {
    async refresh(nowMs) {
      const sinceMs = nowMs - SETTLED_LOOKBACK_MS;
      const members = await membersSince(sinceMs);
      const unknown = members.map(runIdOfMember).filter((runId) => !known.has(runId));
      await Promise.all(unknown.map(learn));
      for (const [runId, run] of known) if (run.createdAtMs < sinceMs) known.delete(runId);
      return [...known.values()];
    },
  };
}
