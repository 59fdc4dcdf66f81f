/**
 * The schedules' routes (docs/guide/schedules.md): every schedule with its
 * next and last fire, one schedule with the runs it made, and the actions —
 * creating (or replacing) one, pausing, resuming and removing one — guarded
 * like cancel (`guardAction`: refused in read-only mode, and from anywhere
 * but the dashboard's page). A schedule sent is checked by the engine's own
 * `schedules.upsert` (its spec, cron expression, time zone, agent and
 * input), the checks the CLI's `errand schedules upsert` gets: a refusal is
 * its `invalid_spec`, `unknown_agent` or `invalid_input`, and nothing is
 * written. A schedule's input and metadata are shown redacted, as every
 * value the page shows.
 */
import { redactSecrets } from "@errand/core";
import type { Hono, MiddlewareHandler } from "hono";
import { z } from "zod";
import type { DashboardContext } from "../context.js";
import { readScheduleDetail } from "../reads/schedules.js";
import { actionBody } from "./action-body.js";

/**
 * The body of `POST /api/schedules`: a schedule spec as `schedules.upsert`
 * takes it, which checks every field.
 */
const ScheduleBody = z.record(z.string(), z.unknown());

/** What `POST /api/schedules/:id/remove` answers, as `errand schedules remove --json` prints it. */
export interface RemovedSchedule {
  id: string;
  removed: true;
}

/** Adds the schedules' routes to `app`, its actions behind `guardAction`. */
export function addScheduleRoutes(
  app: Hono,
  context: DashboardContext,
  guardAction: MiddlewareHandler,
): void {
  const { schedules } = context.errand;

  app.get("/api/schedules", async (c) => c.json(redactSecrets({ items: await schedules.list() })));

  app.get("/api/schedules/:id", async (c) =>
    c.json(redactSecrets(await readScheduleDetail(context, c.req.param("id")))),
  );

  app.post("/api/schedules", guardAction, async (c) => {
    const body = await actionBody(
      c,
      ScheduleBody,
      "{ id, agent, input, cron, timezone?, overlap?, catchUp?, metadata? } or { id, agent, input, everyMs, … }",
    );
    if (body instanceof Response) return body;
    return c.json(redactSecrets(await schedules.upsert(body)));
  });

  app.post("/api/schedules/:id/pause", guardAction, async (c) =>
    c.json(redactSecrets(await schedules.pause(c.req.param("id")))),
  );

  app.post("/api/schedules/:id/resume", guardAction, async (c) =>
    c.json(redactSecrets(await schedules.resume(c.req.param("id")))),
  );

  app.post("/api/schedules/:id/remove", guardAction, async (c) => {
    const id = c.req.param("id");
    await schedules.remove(id);
    const removed: RemovedSchedule = { id, removed: true };
    return c.json(removed);
  });
}
