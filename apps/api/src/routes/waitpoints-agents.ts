/**
 * The waitpoints runs wait on (list, answer) and the agents workers run.
 * An answer is checked against the waitpoint's answer schema: a wrong one is
 * 400 `invalid_answer` with its issues, and the run keeps waiting.
 */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { ApiContext } from "../context.js";
import type { ApiEnv } from "../http/env.js";
import { readAgents } from "../reads/agents.js";
import { AnswerRequest, TokenParam, WaitpointsQuery } from "../schemas/requests.js";
import { AgentPage, CompletedWaitpoint, WaitpointPage } from "../schemas/responses.js";
import { ERROR_RESPONSES, jsonAnswer } from "./responses.js";

const listWaitpointsRoute = createRoute({
  method: "get",
  path: "/v1/waitpoints",
  operationId: "listWaitpoints",
  summary: "Waitpoints waiting for an answer, oldest first (with runId, that run's)",
  tags: ["waitpoints"],
  request: { query: WaitpointsQuery },
  responses: { 200: jsonAnswer("A page of waitpoints", WaitpointPage), ...ERROR_RESPONSES },
});

const answerRoute = createRoute({
  method: "post",
  path: "/v1/waitpoints/{token}/answer",
  operationId: "answerWaitpoint",
  summary: "Answer a waitpoint: its run resumes with the answer, once",
  tags: ["waitpoints"],
  request: {
    params: TokenParam,
    body: { content: { "application/json": { schema: AnswerRequest } }, required: true },
  },
  responses: {
    200: jsonAnswer("The waitpoint is answered", CompletedWaitpoint),
    409: jsonAnswer(
      "Answered before (`waitpoint_answered`), timed out (`waitpoint_timeout`) or its run settled (`run_settled`)",
      ERROR_RESPONSES[400].content["application/json"].schema,
    ),
    ...ERROR_RESPONSES,
  },
});

const agentsRoute = createRoute({
  method: "get",
  path: "/v1/agents",
  operationId: "listAgents",
  summary:
    "The agents workers run (those the key may fire): description, schemas, versions, live workers",
  tags: ["agents"],
  responses: { 200: jsonAnswer("Every agent, on one page", AgentPage), ...ERROR_RESPONSES },
});

/** Adds the routes of waitpoints and agents to `app`. */
export function addWaitpointAndAgentRoutes(app: OpenAPIHono<ApiEnv>, context: ApiContext): void {
  app.openapi(listWaitpointsRoute, async (c) =>
    c.json(await c.var.errand.waitpoints.list(c.req.valid("query")), 200),
  );

  app.openapi(answerRoute, async (c) => {
    const { token } = c.req.valid("param");
    const { answer, answeredBy } = c.req.valid("json");
    const options = answeredBy === undefined ? {} : { answeredBy };
    return c.json(await c.var.errand.waitpoints.complete(token, answer, options), 200);
  });

  app.openapi(agentsRoute, async (c) => {
    const { agents: allowed } = c.var.grant;
    const items = (await readAgents(context)).filter(
      (agent) => allowed === undefined || allowed.includes(agent.name),
    );
    return c.json({ items, count: items.length, hasMore: false }, 200);
  });
}
