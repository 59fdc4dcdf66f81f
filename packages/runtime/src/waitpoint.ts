/**
 * Waitpoints (docs/architecture/tool-results.md#waitpoints): a tool call that waits for an answer
 * from outside the run — a person, or another system. `waitForAnswer` is the
 * API for tools written by users; `askTool` the built-in tool that asks a
 * person a question. The call parks its run (its worker slot is freed) until
 * the waitpoint is answered or times out; the run then resumes and the call,
 * run again, answers with what the log says.
 */
import { ErrandError, preflightSchema, type WaitpointTimeoutAction } from "@errand/core";
import { findLosslessJsonProblem, formatJsonPath, requireWholeNumber } from "@errand/core/ops";
import { z } from "zod";
import { FatalToolError, ParkRequest, type WaitpointRequest } from "./errors.js";
import { strictSchemaToZod } from "./strict-schema-zod.js";
import { defineTool, type Tool, type ToolContext } from "./tool.js";
import { formatIssues } from "./validation-issues.js";

/** The name of the built-in tool that asks a person a question. */
const ASK_TOOL = "ask";

/** What a waitpoint asks and how long it waits. */
export interface WaitpointOptions {
  /** What is asked, shown to whoever answers. */
  question: string;
  /**
   * The schema an answer must match (a zod schema or a JSON Schema object, in
   * the subset output schemas accept). Default: any JSON value.
   */
  answerSchema?: unknown;
  /** How long to wait for an answer, in ms. Default: no timeout. */
  timeoutMs?: number;
  /**
   * On timeout, `result` (the default) answers the call that it timed out,
   * so the model decides what to do; `fail` fails the run `waitpoint_timeout`.
   */
  onTimeout?: WaitpointTimeoutAction;
}

/** What a waiting call answers once its waitpoint closed. */
export type WaitpointAnswer =
  | { answered: true; answer: unknown; answeredBy?: string; answeredAt: string }
  | { answered: false; timedOut: true; message: string };

/**
 * `options` checked and in the shape `waitpoint-created` holds. Throws
 * `unsupported_schema` for an answer schema outside the supported subset and
 * `invalid_spec` for an empty question or a timeout that is not a whole
 * positive number of ms.
 */
function waitpointRequest(options: WaitpointOptions): WaitpointRequest {
  const { question, answerSchema, timeoutMs, onTimeout = "result" } = options;
  if (question.trim() === "") {
    throw new ErrandError("invalid_spec", "a waitpoint needs a question");
  }
  if (timeoutMs !== undefined) requireWholeNumber("timeoutMs", timeoutMs, 1);
  const request: WaitpointRequest = { question, onTimeout };
  if (timeoutMs !== undefined) request.timeoutMs = timeoutMs;
  if (answerSchema !== undefined) {
    const preflight = preflightSchema(answerSchema);
    if (!preflight.ok) throw new ErrandError("unsupported_schema", preflight.reason);
    request.answerSchema = preflight.jsonSchema;
  }
  return request;
}

/** Answers may nest objects and arrays at most this deep. */
const ANSWER_MAX_NESTING = 100;

/** The verdict on an answer: the issues of one that does not match. */
export type AnswerCheck = { ok: true } | { ok: false; issues: string[] };

/**
 * Checks `answer` against a waitpoint's `answerSchema` (as `waitpoint-created`
 * holds it; without one, any JSON value): it must be lossless JSON and match.
 */
export function checkAnswer(
  answerSchema: Record<string, unknown> | undefined,
  answer: unknown,
): AnswerCheck {
  const problem = findLosslessJsonProblem(answer, { maxDepth: ANSWER_MAX_NESTING });
  if (problem !== undefined) {
    return { ok: false, issues: [`${formatJsonPath(problem.path, "$")}: ${problem.problem}`] };
  }
  if (answerSchema === undefined) return { ok: true };
  const result = strictSchemaToZod(answerSchema).safeParse(answer);
  return result.success ? { ok: true } : { ok: false, issues: formatIssues(result.error.issues) };
}

function timedOutMessage(timeoutAt: string | undefined): string {
  return `No answer came before the waitpoint timed out at ${timeoutAt}: decide how to go on without one.`;
}

/**
 * Waits, in a tool handler, for an answer to this call's waitpoint
 * (`ctx.waitpoint.token`: hand it to whoever answers, through
 * `errand.waitpoints.complete(token, answer)`). The first time, it throws a
 * `ParkRequest` that parks the run; when the call runs again after the
 * waitpoint closed, it returns the answer, or that it timed out (or, with
 * `onTimeout: "fail"`, throws a `FatalToolError` `waitpoint_timeout`). Throws
 * what {@link waitpointRequest} throws for bad options.
 *
 * ```ts
 * handler: async ({ amount }, ctx) => {
 *   if (ctx.waitpoint.state === undefined) await notifyApprovers(ctx.waitpoint.token, amount);
 *   return waitForAnswer(ctx, { question: `Refund ${amount} EUR?`, timeoutMs: 3_600_000 });
 * }
 * ```
 */
export function waitForAnswer(ctx: ToolContext, options: WaitpointOptions): WaitpointAnswer {
  const request = waitpointRequest(options);
  const { state, token } = ctx.waitpoint;
  if (state === undefined || state.status === "waiting") {
    throw new ParkRequest(`waiting for an answer: ${request.question}`, [], request);
  }
  if (state.status === "answered") {
    return {
      answered: true,
      answer: state.answer,
      ...(state.answeredBy === undefined ? {} : { answeredBy: state.answeredBy }),
      answeredAt: state.closedAt ?? "",
    };
  }
  if (state.onTimeout === "fail") {
    throw new FatalToolError(
      `no answer came before the waitpoint timed out at ${state.timeoutAt} (waitpoint ${token})`,
      { code: "waitpoint_timeout" },
    );
  }
  return { answered: false, timedOut: true, message: timedOutMessage(state.timeoutAt) };
}

/** Options of {@link askTool}: what the agent's author decides; the model writes the question. */
export interface AskToolOptions extends Omit<WaitpointOptions, "question"> {
  /** Default `ask`. */
  name?: string;
  /** What the model is told the tool is for. */
  description?: string;
}

/**
 * The built-in tool that asks a person (or another system) a question and
 * waits for the answer: give it to an agent (`tools: [askTool()]`). The
 * answer schema and timeout are the author's; the model writes the question.
 * Throws at once for an answer schema outside the supported subset
 * (`unsupported_schema`), like an agent's output schema.
 */
export function askTool(options: AskToolOptions = {}): Tool {
  const { name = ASK_TOOL, description, ...waitpoint } = options;
  waitpointRequest({ ...waitpoint, question: "?" });
  const timeout =
    waitpoint.timeoutMs === undefined
      ? ""
      : ` If no answer comes within ${waitpoint.timeoutMs} ms, it says so and you decide how to go on.`;
  return defineTool({
    name,
    description:
      description ??
      `Asks a person a question and waits for the answer: { answered, answer?, answeredBy?, answeredAt? }. Use it when you need a decision or a fact only a person can give.${timeout}`,
    parameters: z.object({
      question: z.string().min(1).describe("The question, complete enough to answer on its own."),
    }),
    handler: ({ question }, ctx) => waitForAnswer(ctx, { ...waitpoint, question }),
  });
}
