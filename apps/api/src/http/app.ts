/**
 * The API's Hono app: the guards every request passes (Host and Origin,
 * body size and nesting), the probes, the access check of `/v1`, the routes,
 * and `GET /v1/openapi.json`, the OpenAPI 3.1 document generated from the
 * routes' schemas (docs/architecture/http-api.md#the-contract). Every answer
 * is JSON, or a server-sent-event stream; every error is `{ error: { … } }`.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import type { ApiContext } from "../context.js";
import { addRunEventRoutes } from "../routes/run-events.js";
import { addRunRoutes } from "../routes/runs.js";
import { addWaitpointAndAgentRoutes } from "../routes/waitpoints-agents.js";
import { type Access, checkAccess } from "./access.js";
import type { ApiEnv } from "./env.js";
import { answerError, apiError, invalidRequest } from "./errors.js";
import { addProbes } from "./probes.js";
import { checkHostAndOrigin, limitBodySize, limitNesting } from "./request-guards.js";

/** The version of the API the document describes. */
const API_VERSION = "1.0.0";

/** The document's `info` and servers. */
export const DOCUMENT_CONFIG = {
  openapi: "3.1.0",
  info: {
    title: "errand HTTP API",
    version: API_VERSION,
    description:
      "Fire, wait for, collect, list, cancel and follow errand runs, answer waitpoints and list agents, from any language. Answers are the library's own shapes; every error is `{ error: { code, message, retryable, fix? } }`.",
    license: { name: "MIT", identifier: "MIT" },
  },
  servers: [{ url: "http://127.0.0.1:4050", description: "errand api, on loopback" }],
  security: [{ bearerKey: [] }],
};

/** The routes of `/v1`, with no process behind them: what the document is generated from. */
export function createRoutes(context: ApiContext): OpenAPIHono<ApiEnv> {
  const app = new OpenAPIHono<ApiEnv>({
    defaultHook: (result, c) => (result.success ? undefined : invalidRequest(c, result.error)),
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "bearerKey", {
    type: "http",
    scheme: "bearer",
    description:
      "A key `errand keys create` printed. On a loopback listener a request without one is answered as the operator's own.",
  });
  addRunRoutes(app, context);
  addRunEventRoutes(app, context);
  addWaitpointAndAgentRoutes(app, context);
  return app;
}

/** The whole app of one API process. */
export function createApp(
  context: ApiContext,
  access: Access,
  isClosing: () => boolean,
): OpenAPIHono<ApiEnv> {
  const { logger } = context.options;
  const app = new OpenAPIHono<ApiEnv>();
  app.onError((error, c) => {
    const answer = answerError(c, error);
    if (answer.status >= 500)
      logger.error({ err: error, path: c.req.path }, "errand-api request failed");
    return answer;
  });
  app.notFound((c) =>
    apiError(c, 404, "not_found", `no such route: ${c.req.method} ${c.req.path}`, {
      fix: "every route is under /v1: GET /v1/openapi.json lists them",
    }),
  );
  app.use(async (c, next) => {
    await next();
    c.header("X-Content-Type-Options", "nosniff");
    c.header("Cache-Control", "no-store");
  });
  app.use(checkHostAndOrigin(context.options.host));
  addProbes(app, context, isClosing);
  const routes = createRoutes(context);
  const document = routes.getOpenAPI31Document(DOCUMENT_CONFIG);
  app.get("/v1/openapi.json", (c) => c.json(document));
  app.use(
    "/v1/*",
    limitBodySize(context.options.maxBodyBytes),
    limitNesting,
    checkAccess(context, access),
  );
  app.route("/", routes);
  return app;
}
