/**
 * Running the tool calls of one model response, in order: each becomes
 * `tool-called` + `tool-result` (a tool ran), `output-recorded` (a valid
 * structured output) or `refused` (invalid arguments, output already
 * recorded, unknown tool). Nothing is written here: the events are returned
 * for the step's single append.
 */
import type { NewEvent, RefusalReason, ToolCall, WaitpointState } from "@errand/core";
import { markChecked, waitpointToken } from "@errand/core/ops";
import { raceAbort } from "./abort.js";
import type { BlobStore } from "./blobs.js";
import {
  errorMessage,
  type FatalToolError,
  isFatalToolError,
  isParkRequest,
  type ParkRequest,
} from "./errors.js";
import type { Logger } from "./logger.js";
import {
  invalidOutputMessage,
  isStructuredOutputTool,
  type OutputValidator,
  outputAlreadyRecordedMessage,
  STRUCTURED_OUTPUT_TOOL,
} from "./structured-output.js";
import type { Tool, ToolContext } from "./tool.js";
import { failedToolResult, shapeToolResult } from "./tool-results.js";
import { inToolSpan } from "./tracing/tool-span.js";
import { fixAndRetryMessage, formatIssues } from "./validation-issues.js";

/** What running a run's tool calls needs. */
export interface CallRunner {
  runId: string;
  tools: ReadonlyMap<string, Tool>;
  /** The run's output validator; `undefined` for a run without a schema. */
  output: OutputValidator | undefined;
  blobs: BlobStore;
  logger: Logger;
  /** The `at` of the next event. */
  timestamp: () => string;
  /** What the host lends tools (see {@link ToolContext.services}). */
  services: Readonly<Record<string, unknown>>;
  /** Put each call's arguments and result on its `execute_tool` span (redacted). */
  traceContent: boolean;
  /** The run's waitpoint `token`, as its log has it so far. */
  waitpointOf(token: string): WaitpointState | undefined;
}

/** A call to run: with its whole arguments, and as its events log it (`call-args.ts`). */
export interface StepCall {
  call: ToolCall;
  logged: ToolCall;
}

/** Why running the calls stopped before the last one. */
type CallsHalt =
  | { kind: "fatal"; error: FatalToolError }
  | { kind: "aborted" }
  | { kind: "parked"; request: ParkRequest };

/** The events of the calls run, whether an output was recorded, and why running them stopped early. */
export interface CallsOutcome {
  events: NewEvent[];
  recorded: boolean;
  halt?: CallsHalt;
}

function refusal(
  runner: CallRunner,
  step: number,
  call: ToolCall,
  reason: RefusalReason,
  message: string,
  issues?: string[],
): NewEvent {
  return {
    type: "refused",
    at: runner.timestamp(),
    data: {
      step,
      callId: call.callId,
      name: call.name,
      reason,
      message,
      ...(issues === undefined ? {} : { issues }),
    },
  };
}

function unknownToolMessage(runner: CallRunner, name: string): string {
  const names = [...runner.tools.keys(), ...(runner.output ? [STRUCTURED_OUTPUT_TOOL] : [])];
  const available = names.length === 0 ? "none" : names.join(", ");
  return `Error: there is no tool named ${name}. The tools you can call are: ${available}.`;
}

function recordOutput(runner: CallRunner, step: number, call: ToolCall): CallsOutcome {
  const check = runner.output!.check(call.args);
  if (!check.ok) {
    const message = invalidOutputMessage(call.name, check.issues);
    const event = refusal(runner, step, call, "invalid-arguments", message, check.issues);
    return { events: [event], recorded: false };
  }
  const data = { step, callId: call.callId, output: check.output };
  // Marked checked (core's `markChecked`): the output passed the run's own schema just now, and
  // the call id is its `model-responded`'s, validated by the append that logs that response.
  const recorded = markChecked<NewEvent>({ type: "output-recorded", at: runner.timestamp(), data });
  return { events: [recorded], recorded: true };
}

/** The `waitpoint-created` of a call that parks on a new waitpoint; none for any other park. */
function waitpointCreated(
  runner: CallRunner,
  step: number,
  callId: string,
  token: string,
  request: ParkRequest,
): NewEvent[] {
  const { waitpoint } = request;
  if (waitpoint === undefined || runner.waitpointOf(token) !== undefined) return [];
  const at = runner.timestamp();
  const { question, answerSchema, timeoutMs, onTimeout } = waitpoint;
  const timeoutAt =
    timeoutMs === undefined ? undefined : new Date(Date.parse(at) + timeoutMs).toISOString();
  const data = {
    step,
    callId,
    token,
    question,
    ...(answerSchema === undefined ? {} : { answerSchema }),
    ...(timeoutAt === undefined ? {} : { timeoutAt }),
    onTimeout,
  };
  return [{ type: "waitpoint-created", at, data }];
}

async function runTool(
  runner: CallRunner,
  step: number,
  { call, logged }: StepCall,
  tool: Tool,
  signal: AbortSignal,
): Promise<CallsOutcome> {
  const parsed = tool.parameters.safeParse(call.args);
  if (!parsed.success) {
    const issues =
      typeof call.args === "string"
        ? ["$: the arguments are not valid JSON"]
        : formatIssues(parsed.error.issues);
    const message = fixAndRetryMessage(call.name, `invalid arguments for ${call.name}`, issues);
    return {
      events: [refusal(runner, step, call, "invalid-arguments", message, issues)],
      recorded: false,
    };
  }
  const { callId, name } = call;
  const { args, argsRef } = logged;
  const called: NewEvent = {
    type: "tool-called",
    at: runner.timestamp(),
    data: { step, callId, name, args, ...(argsRef === undefined ? {} : { argsRef }) },
  };
  const logger = runner.logger.child({ step, tool: name, callId });
  const token = waitpointToken({ runId: runner.runId, step, callId });
  const ctx: ToolContext = {
    signal,
    runId: runner.runId,
    step,
    callId,
    logger,
    putBlob: (value, contentType) => runner.blobs.put(runner.runId, value, contentType),
    services: runner.services,
    waitpoint: { token, state: runner.waitpointOf(token) },
  };
  let value: unknown;
  try {
    value = await raceAbort(
      inToolSpan(call, runner.traceContent, async () => tool.handler(parsed.data, ctx)),
      signal,
    );
  } catch (error) {
    if (signal.aborted) return { events: [], recorded: false, halt: { kind: "aborted" } };
    if (isFatalToolError(error)) {
      return { events: [called], recorded: false, halt: { kind: "fatal", error } };
    }
    if (isParkRequest(error)) {
      const parked: NewEvent = {
        type: "run-parked",
        at: runner.timestamp(),
        data: {
          step,
          callId,
          waitFor: [...error.waitFor],
          reason: error.message,
          ...(error.waitForChildren === undefined
            ? {}
            : { waitForChildren: error.waitForChildren }),
        },
      };
      const created = waitpointCreated(runner, step, callId, token, error);
      return {
        events: [called, ...created, parked],
        recorded: false,
        halt: { kind: "parked", request: error },
      };
    }
    logger.warn({ error: errorMessage(error) }, "tool failed");
    const data = { step, callId, ...failedToolResult(errorMessage(error)) };
    return {
      events: [called, { type: "tool-result", at: runner.timestamp(), data }],
      recorded: false,
    };
  }
  const shaped = await shapeToolResult(value, runner.runId, runner.blobs);
  const data = { step, callId, ...shaped };
  return {
    events: [called, { type: "tool-result", at: runner.timestamp(), data }],
    recorded: false,
  };
}

function runCall(
  runner: CallRunner,
  step: number,
  stepCall: StepCall,
  recorded: boolean,
  signal: AbortSignal,
): Promise<CallsOutcome> | CallsOutcome {
  const { call } = stepCall;
  if (recorded) {
    const message = outputAlreadyRecordedMessage(call.name);
    return {
      events: [refusal(runner, step, call, "output-already-recorded", message)],
      recorded: false,
    };
  }
  if (runner.output && isStructuredOutputTool(call.name)) return recordOutput(runner, step, call);
  const tool = runner.tools.get(call.name);
  if (tool === undefined) {
    const message = unknownToolMessage(runner, call.name);
    return { events: [refusal(runner, step, call, "unknown-tool", message)], recorded: false };
  }
  return runTool(runner, step, stepCall, tool, signal);
}

/**
 * Runs `calls` of step `step` in order. Calls before a recorded output run;
 * every call after it (or after an output recorded earlier, `alreadyRecorded`)
 * is refused. Stops early on a `FatalToolError` or a `ParkRequest` (the
 * call's `tool-called` kept) or when `signal` fires during a tool (that call
 * left out).
 */
export async function runCalls(
  runner: CallRunner,
  step: number,
  calls: readonly StepCall[],
  alreadyRecorded: boolean,
  signal: AbortSignal,
): Promise<CallsOutcome> {
  const events: NewEvent[] = [];
  let recorded = alreadyRecorded;
  for (const call of calls) {
    const settled = await runCall(runner, step, call, recorded, signal);
    // Indexed: a call's handful of events appended without an iterator.
    for (let index = 0; index < settled.events.length; index++) events.push(settled.events[index]!);
    recorded ||= settled.recorded;
    if (settled.halt) return { events, recorded, halt: settled.halt };
  }
  return { events, recorded };
}
