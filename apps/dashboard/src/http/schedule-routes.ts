/**
 * The schedules' routes (docs/guide/schedules.md): every schedule with its
 * next and last fire, one schedule with the runs it made, and pausing and
 * resuming one — actions, guarded like cancel (`guardAction`: refused in
 * read-only mode, and from anywhere but the dashboard's page). A schedule's
 * input and metadata are shown redacted, as every value the page shows.
 */
import { redactSecrets } from "@errand/core";
import type { Hono, MiddlewareHandler } from "hono";
import type { DashboardContext } from "../context.js";
import { readScheduleDetail } from "../reads/schedules.js";

/** Adds the schedules' routes to `app`, its actions behind `guardAction`. */
export function addScheduleRoutes(
  app: Hono,
  context: DashboardContext,
  guardAction: MiddlewareHandler,
): void {
  app.get("/api/schedules", async (c) =>
    c.json(redactSecrets({ items: await context.errand.schedules.list() })),
  );

  app.get("/api/schedules/:id", async (c) =>
    c.json(redactSecrets(await readScheduleDetail(context, c.req.param("id")))),
  );

  app.post("/api/schedules/:id/pause", guardAction, async (c) =>
    c.json(redactSecrets(await context.errand.schedules.pause(c.req.param("id")))),
  );

  app.post("/api/schedules/:id/resume", guardAction, async (c) =>
    c.json(redactSecrets(await context.errand.schedules.resume(c.req.param("id")))),
  );
}
