/**
 * `GET /api/runs/:runId/waterfall`: where a run's time went, built from its
 * whole log as it stands now (`present/waterfall.ts`).
 */
import { runNotFound } from "@errand/core/ops";
import type { DashboardContext } from "../context.js";
import { buildWaterfall, type Waterfall } from "../present/waterfall.js";
import { requireRunId } from "./run-view.js";

/** Reads the run's log and builds its waterfall. Throws `invalid_spec` or `not_found`. */
export async function readRunWaterfall(
  context: DashboardContext,
  runId: string,
): Promise<Waterfall> {
  const events = await context.errand.store.readLog(requireRunId(runId));
  if (events.length === 0) throw runNotFound(runId);
  return buildWaterfall(events, new Date().toISOString());
}
