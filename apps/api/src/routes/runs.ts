/**
 * The routes of runs: fire one or many, get one (waiting up to `waitMs` for
 * it to settle), collect a set by pages, list with filters, cancel. Each
 * answers with the library's own shape (`FireResult`, `fireMany`'s batch,
 * `RunResult`, `collect`'s page, `list`'s page, `CancelResult`).
 */
import { foldRun, runSoFar } from "@errand/core";
import { createRoute, type OpenAPIHono, type z } from "@hono/zod-openapi";
import type { ApiContext } from "../context.js";
import type { ApiEnv } from "../http/env.js";
import {
  CancelRequest,
  CollectRequest,
  FireBatchRequest,
  FireRequest,
  GetRunQuery,
  IdempotencyHeader,
  ListQuery,
  RunIdParam,
} from "../schemas/requests.js";
import {
  CancelResult,
  CollectResult,
  FireBatchResult,
  FireResult,
  RunPage,
  RunSoFar,
} from "../schemas/responses.js";
import { pathRunId } from "./path-run-id.js";
import { ERROR_RESPONSES, jsonAnswer } from "./responses.js";

const json = <Schema>(schema: Schema, required = true) => ({
  content: { "application/json": { schema } },
  required,
});

const fireRoute = createRoute({
  method: "post",
  path: "/v1/runs",
  operationId: "fireRun",
  summary: "Fire one run",
  tags: ["runs"],
  request: { headers: IdempotencyHeader, body: json(FireRequest) },
  responses: {
    201: jsonAnswer("The run is fired and its job enqueued", FireResult),
    200: jsonAnswer("The Idempotency-Key named a run fired before: that run", FireResult),
    ...ERROR_RESPONSES,
  },
});

const fireBatchRoute = createRoute({
  method: "post",
  path: "/v1/runs/batch",
  operationId: "fireRuns",
  summary: "Fire many runs: one result per spec, in order; a bad spec fails alone",
  tags: ["runs"],
  request: { headers: IdempotencyHeader, body: json(FireBatchRequest) },
  responses: { 200: jsonAnswer("One result per spec", FireBatchResult), ...ERROR_RESPONSES },
});

const getRunRoute = createRoute({
  method: "get",
  path: "/v1/runs/{runId}",
  operationId: "getRun",
  summary:
    "A run: its RunResult once settled, else the run so far; waits up to waitMs for it to settle",
  tags: ["runs"],
  request: { params: RunIdParam, query: GetRunQuery },
  responses: { 200: jsonAnswer("The run", RunSoFar), ...ERROR_RESPONSES },
});

const collectRoute = createRoute({
  method: "post",
  path: "/v1/runs/collect",
  operationId: "collectRuns",
  summary: "The outcomes of many runs, a page at a time, with the counts of all of them",
  tags: ["runs"],
  request: { body: json(CollectRequest) },
  responses: { 200: jsonAnswer("A page of results", CollectResult), ...ERROR_RESPONSES },
});

const listRoute = createRoute({
  method: "get",
  path: "/v1/runs",
  operationId: "listRuns",
  summary: "Runs, newest first, filtered by status, agent or parent",
  tags: ["runs"],
  request: { query: ListQuery },
  responses: { 200: jsonAnswer("A page of runs", RunPage), ...ERROR_RESPONSES },
});

const cancelRoute = createRoute({
  method: "post",
  path: "/v1/runs/{runId}/cancel",
  operationId: "cancelRun",
  summary: "Cancel a run (with cascade, its descendants too)",
  tags: ["runs"],
  request: { params: RunIdParam, body: json(CancelRequest, false) },
  responses: { 200: jsonAnswer("What became of the run", CancelResult), ...ERROR_RESPONSES },
});

/** Adds the routes of runs to `app`. */
export function addRunRoutes(app: OpenAPIHono<ApiEnv>, context: ApiContext): void {
  app.openapi(fireRoute, async (c) => {
    const spec = c.req.valid("json");
    const key = c.req.valid("header")["idempotency-key"];
    const fired = await c.var.errand.fire({
      ...spec,
      ...(spec.idempotencyKey === undefined && key !== undefined ? { idempotencyKey: key } : {}),
    });
    return c.json(fired, fired.deduplicated ? 200 : 201);
  });

  app.openapi(fireBatchRoute, async (c) => {
    const { runs } = c.req.valid("json");
    const key = c.req.valid("header")["idempotency-key"];
    const specs = runs.map((spec, index) =>
      spec.idempotencyKey === undefined && key !== undefined
        ? { ...spec, idempotencyKey: `${key}:${index}` }
        : spec,
    );
    return c.json(await c.var.errand.fireMany(specs), 200);
  });

  app.openapi(getRunRoute, async (c) => {
    const runId = pathRunId(c.req.valid("param").runId);
    const { waitMs } = c.req.valid("query");
    const settled = await c.var.errand.result(runId, { waitMs: waitMs ?? 0 });
    if (settled !== undefined) return c.json(settled, 200);
    const { errand } = context;
    const run = await errand.withTreeSpend(
      runSoFar(foldRun(await errand.store.readLog(runId), runId)),
    );
    return c.json(run, 200);
  });

  app.openapi(collectRoute, async (c) => {
    const { runIds, ...options } = c.req.valid("json");
    return c.json(await c.var.errand.collect(runIds, options), 200);
  });

  app.openapi(listRoute, async (c) => c.json(await c.var.errand.list(c.req.valid("query")), 200));

  app.openapi(cancelRoute, async (c) => {
    const runId = pathRunId(c.req.valid("param").runId);
    const body = c.req.valid("json") ?? {};
    const result = await c.var.errand.cancel(runId, { ...body, by: "http-api" });
    // The library's type is recursive; its descendants are one flat list, parents first.
    return c.json(result as z.infer<typeof CancelResult>, 200);
  });
}
