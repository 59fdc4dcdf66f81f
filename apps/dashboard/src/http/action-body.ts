/**
 * The JSON body of an action, checked against its zod schema: a body that
 * is not JSON, or that the schema refuses, is answered 400
 * `invalid_request` saying what is wrong with it, before the action runs.
 */
import type { Context } from "hono";
import type { z } from "zod";
import { apiError } from "./api-error.js";

/**
 * The action's body checked against `schema`, or the 400 `invalid_request`
 * answer that says what is wrong with it (`shape` says what to send).
 */
export async function actionBody<T>(
  c: Context,
  schema: z.ZodType<T>,
  shape: string,
): Promise<T | Response> {
  const body = await jsonBody(c.req.raw);
  if (body === undefined) return apiError(c, 400, "invalid_request", `send a JSON body: ${shape}`);
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map(
    (issue) => `${issue.path.join(".") || "body"}: ${issue.message}`,
  );
  return apiError(c, 400, "invalid_request", `invalid request: ${issues.join("; ")}`);
}

/** The request's JSON body, or `undefined` when it is not JSON (or not sent as JSON). */
async function jsonBody(request: Request): Promise<unknown> {
  if (!(request.headers.get("content-type") ?? "").includes("application/json")) return undefined;
  try {
    return await request.json();
  } catch {
    return undefined;
  }
}
