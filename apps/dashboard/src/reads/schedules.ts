/**
 * The schedules (docs/guide/schedules.md) as the dashboard shows them: each
 * with its next and last fire (the client's `schedules.list`), and one
 * schedule with the runs it made — the newest the engine keeps of each
 * schedule, each with its tick and its summary as the runs list shows it.
 */
import { ErrandError } from "@errand/core";
import type { RunSummary, ScheduleView } from "@errand/engine";
import { readScheduleRuns } from "@errand/engine/ops";
import type { DashboardContext } from "../context.js";
import { readRunSummary } from "./run-summary.js";

/** A run a schedule made: its id, its tick (ISO), and its summary unless it has expired. */
export interface ScheduleRunView {
  runId: string;
  tick: string;
  run?: RunSummary;
}

/** `GET /api/schedules/:id`: the schedule and the runs it made, newest first. */
export interface ScheduleDetail {
  schedule: ScheduleView;
  runs: ScheduleRunView[];
}

/** Schedule `id` as `list` shows it; throws `not_found` when there is none. */
async function readSchedule(context: DashboardContext, id: string): Promise<ScheduleView> {
  const schedule = (await context.errand.schedules.list()).find((each) => each.id === id);
  if (schedule === undefined) {
    throw new ErrandError("not_found", `there is no schedule ${JSON.stringify(id)}`, {
      details: { scheduleId: id },
    });
  }
  return schedule;
}

/** Schedule `id` and the runs it made (newest first); throws `not_found` when there is none. */
export async function readScheduleDetail(
  context: DashboardContext,
  id: string,
): Promise<ScheduleDetail> {
  const schedule = await readSchedule(context, id);
  const made = await context.patiently("read of a schedule's runs", () =>
    readScheduleRuns(context.redis, context.keys, id),
  );
  const runs = await Promise.all(
    made.map(async ({ runId, tick }): Promise<ScheduleRunView> => {
      const run = await readRunSummary(context, runId);
      return { runId, tick: new Date(tick).toISOString(), ...(run === undefined ? {} : { run }) };
    }),
  );
  return { schedule, runs };
}
