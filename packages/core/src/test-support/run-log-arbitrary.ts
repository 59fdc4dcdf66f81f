/**
 * A fast-check arbitrary of plausible run logs, for the fold's property tests.
 * It draws a plan (schema or not, steps with tool calls and their fates,
 * restarts, a cancel request, an ending, junk after the ending) and plays it
 * through {@link RunLogBuilder}, following the runtime's rules: once an output
 * is recorded every later call is refused and no model request follows.
 * Test-only: not exported from the package.
 */
import fc from "fast-check";
import type { RunEvent, ToolCall } from "../events.js";
import { call, type RunLogBuilder, runLog } from "./log-builder.js";

/** What became of one tool call in a generated run. */
type CallFate = "result" | "tool-error" | "in-flight" | "valid" | "invalid";

interface CallPlan {
  name: "search" | "fetch" | "structured_output";
  args: unknown;
  fate: CallFate;
}

interface StepPlan {
  text: string | undefined;
  calls: CallPlan[];
  inputTokens: number;
  outputTokens: number;
  /** A new attempt (`run-started`) begins before this step's model request. */
  restartBefore: boolean;
  cancelRequestedAfter: boolean;
}

type Ending = "none" | "finished" | "failed" | "cancelled";

/** Events appended after the terminal one: the append script refuses them, the fold must ignore them. */
type Junk = "model-responded" | "run-started" | "output-recorded" | "finished" | "failed";

interface RunPlan {
  hasSchema: boolean;
  steps: StepPlan[];
  ending: Ending;
  closingText: string | undefined;
  failure: { code: string; retryable: boolean };
  junk: Junk[];
}

/** A generated log and the facts a property needs about it. */
export interface GeneratedRun {
  events: RunEvent[];
  runId: string;
  hasSchema: boolean;
}

const jsonValue = fc.jsonValue({ maxDepth: 2 });
const text = fc.option(fc.string({ maxLength: 12 }), { nil: undefined });

const callPlan: fc.Arbitrary<CallPlan> = fc.record({
  name: fc.constantFrom("search", "fetch", "structured_output"),
  args: jsonValue,
  fate: fc.constantFrom("result", "tool-error", "in-flight", "valid", "invalid"),
});

const stepPlan: fc.Arbitrary<StepPlan> = fc.record({
  text,
  calls: fc.array(callPlan, { maxLength: 3 }),
  inputTokens: fc.nat({ max: 5000 }),
  outputTokens: fc.nat({ max: 5000 }),
  restartBefore: fc.boolean(),
  cancelRequestedAfter: fc.boolean(),
});

const runPlan: fc.Arbitrary<RunPlan> = fc.record({
  hasSchema: fc.boolean(),
  steps: fc.array(stepPlan, { maxLength: 5 }),
  ending: fc.constantFrom("none", "finished", "failed", "cancelled"),
  closingText: text,
  failure: fc.record({
    code: fc.constantFrom("model_error", "timeout", "max_steps", "worker_lost"),
    retryable: fc.boolean(),
  }),
  junk: fc.array(
    fc.constantFrom("model-responded", "run-started", "output-recorded", "finished", "failed"),
    { maxLength: 3 },
  ),
});

/** Plays one call of a step; returns whether the run's output is now recorded. */
function playCall(
  log: RunLogBuilder,
  step: number,
  toolCall: ToolCall,
  fate: CallFate,
  hasSchema: boolean,
): boolean {
  const { callId, name, args } = toolCall;
  if (name === "structured_output") {
    if (!hasSchema) {
      log.refused({ step, callId, name, reason: "unknown-tool", message: `unknown tool ${name}` });
    } else if (fate === "valid") {
      log.outputRecorded(step, callId, args);
      return true;
    } else {
      const issues = ["(root): expected object"];
      log.refused({ step, callId, name, reason: "invalid-arguments", message: "invalid", issues });
    }
    return false;
  }
  log.toolCalled(step, toolCall);
  if (fate === "tool-error") log.toolResult(step, callId, { ok: false, error: "boom" });
  else if (fate !== "in-flight") log.toolResult(step, callId, { result: args });
  return false;
}

/** Refuses a call that came after the recorded output in the same response. */
function refuseAfterRecording(log: RunLogBuilder, step: number, { callId, name }: ToolCall): void {
  log.refused({
    step,
    callId,
    name,
    reason: "output-already-recorded",
    message: `Error: structured output already recorded: the run is complete, so ${name} is not executed.`,
  });
}

function playSteps(log: RunLogBuilder, plan: RunPlan): void {
  let attempt = 1;
  for (const [i, planned] of plan.steps.entries()) {
    const step = i + 1;
    if (planned.restartBefore) log.started(++attempt);
    const calls = planned.calls.map((c, n) => call(`s${step}c${n}`, c.name, c.args));
    log.modelResponded(step, {
      ...(planned.text === undefined ? {} : { text: planned.text }),
      calls,
      usage: { inputTokens: planned.inputTokens, outputTokens: planned.outputTokens },
    });
    let recorded = false;
    for (const [n, toolCall] of calls.entries()) {
      if (recorded) refuseAfterRecording(log, step, toolCall);
      else recorded = playCall(log, step, toolCall, planned.calls[n]!.fate, plan.hasSchema);
    }
    if (planned.cancelRequestedAfter) log.cancelRequested({ reason: `after step ${step}` });
    if (recorded) return;
  }
}

function playEnding(log: RunLogBuilder, plan: RunPlan): void {
  if (plan.ending === "none") return;
  if (plan.ending === "finished") log.finished(plan.closingText);
  if (plan.ending === "failed") log.failed(plan.failure.code, "failed", plan.failure.retryable);
  if (plan.ending === "cancelled") log.cancelled();
  for (const junk of plan.junk) {
    if (junk === "model-responded") log.modelResponded(99, { text: "late" });
    if (junk === "run-started") log.started(99);
    if (junk === "output-recorded") log.outputRecorded(99, "late", { late: true });
    if (junk === "finished") log.finished("late");
    if (junk === "failed") log.failed("internal");
  }
}

/** Plausible run logs: queued, started, steps, maybe an ending, maybe junk after it. */
export const generatedRun: fc.Arbitrary<GeneratedRun> = runPlan.map((plan) => {
  const log = runLog();
  if (plan.hasSchema) log.queuedWithSchema();
  else log.queued();
  log.started(1);
  playSteps(log, plan);
  playEnding(log, plan);
  return { events: log.build(), runId: log.runId, hasSchema: plan.hasSchema };
});
