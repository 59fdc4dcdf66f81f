/**
 * The model transcript of a run, rebuilt from its folded state alone: the
 * system instructions (plus the structured-output instruction when the run
 * carries a schema), the input, then each step's assistant message and one
 * tool message per call — the newest steps that fit in
 * {@link TRANSCRIPT_BUDGET_CHARS}, older ones left out whole with a note
 * saying so (docs/architecture/tool-results.md#a-transcript-within-a-budget).
 * Each assistant message carries what its step logged for the provider to be
 * sent back (its output items, reasoning included, and its response id). A
 * resumed run therefore sends the model exactly what an uninterrupted run
 * would have, and the state a worker keeps of a run need hold no more than
 * its transcript ({@link trimToTranscriptInPlace}).
 */
import type { CallOutcome, RunState } from "@errand/core";
import { TRANSCRIPT_BUDGET_CHARS } from "@errand/core/ops";
import type { Agent, TranscriptMessage } from "./model.js";
import { OUTPUT_RECORDED_MESSAGE, STRUCTURED_OUTPUT_INSTRUCTION } from "./structured-output.js";
import { toolResultContent } from "./tool-results.js";

/** The user message for a run input: strings as they are, anything else as JSON. */
function inputMessage(input: unknown): string {
  return typeof input === "string" ? input : (JSON.stringify(input) ?? "");
}

/** What the model reads as the answer to one tool call. */
function toolMessageContent(outcome: CallOutcome): string {
  switch (outcome.kind) {
    case "recorded":
      return OUTPUT_RECORDED_MESSAGE;
    case "refused":
      return outcome.message;
    case "result":
      return outcome.ok
        ? toolResultContent(outcome)
        : `Error: ${outcome.error ?? "the tool failed"}`;
  }
}

/** The system message of a run of `agent`. */
function systemMessage(agent: Agent, hasSchema: boolean): string {
  return hasSchema
    ? `${agent.instructions}\n\n${STRUCTURED_OUTPUT_INSTRUCTION}`
    : agent.instructions;
}

type Step = RunState["steps"][number];

/**
 * The messages of each step, kept while its step is: the fold replaces a
 * step it changes, so a step object's messages never go stale, and a run of
 * many steps builds each step's messages (and each tool message's content)
 * once, not once per later step
 * (docs/architecture/tool-results.md#fan-out-at-a-flat-cost-per-child).
 */
const stepMessagesCache = new WeakMap<Step, TranscriptMessage[]>();

/** The user message of each queued run's input, kept while its `queued` is. */
const inputMessageCache = new WeakMap<object, string>();

/** A step's assistant message, then one tool message per call that has an outcome. */
function stepMessages(step: Step): TranscriptMessage[] {
  const cached = stepMessagesCache.get(step);
  if (cached !== undefined) return cached;
  const messages: TranscriptMessage[] = [
    {
      role: "assistant",
      ...(step.text === undefined ? {} : { content: step.text }),
      calls: step.calls.map(({ callId, name, args }) => ({ callId, name, args })),
      ...(step.items === undefined ? {} : { items: step.items }),
      ...(step.responseId === undefined ? {} : { responseId: step.responseId }),
    },
  ];
  for (const call of step.calls) {
    if (call.outcome === undefined) continue;
    messages.push({
      role: "tool",
      callId: call.callId,
      name: call.name,
      content: toolMessageContent(call.outcome),
    });
  }
  stepMessagesCache.set(step, messages);
  return messages;
}

/** The user message of `queued`'s input, made once per `queued`. */
function cachedInputMessage(queued: RunState["queued"]): string {
  if (queued === undefined) return inputMessage(undefined);
  const cached = inputMessageCache.get(queued);
  if (cached !== undefined) return cached;
  const message = inputMessage(queued.input);
  inputMessageCache.set(queued, message);
  return message;
}

/**
 * The characters of a step's messages (text, call arguments and output items
 * as JSON, tool results), computed once per step object. A step trimmed out
 * of the state (see {@link trimToTranscriptInPlace}) keeps the size of the step it
 * replaced here, so where the transcript starts reads the same on either.
 */
const stepCharsCache = new WeakMap<Step, number>();

function stepChars(step: Step): number {
  const cached = stepCharsCache.get(step);
  if (cached !== undefined) return cached;
  let chars = 0;
  for (const message of stepMessages(step)) {
    if (message.role !== "assistant") {
      chars += message.content.length;
      continue;
    }
    chars += (message.content?.length ?? 0) + JSON.stringify(message.calls).length;
    if (message.items !== undefined) chars += JSON.stringify(message.items).length;
  }
  stepCharsCache.set(step, chars);
  return chars;
}

/**
 * The index of the first step the transcript carries: the newest steps whose
 * characters add up to {@link TRANSCRIPT_BUDGET_CHARS} at most, and always
 * the last one. Steps only ever join at the end, and the last one only
 * grows, so this index never moves back as a run goes on.
 */
function transcriptStart(steps: readonly Step[]): number {
  let chars = 0;
  for (let index = steps.length - 1; index >= 0; index -= 1) {
    chars += stepChars(steps[index]!);
    if (chars > TRANSCRIPT_BUDGET_CHARS) return Math.min(index + 1, steps.length - 1);
  }
  return 0;
}

/** The user message saying which steps the transcript leaves out. */
function leftOutMessage(steps: readonly Step[], start: number): TranscriptMessage {
  const first = steps[0]!.step;
  const range =
    start === 1
      ? `Step ${first} of this run is`
      : `Steps ${first}–${steps[start - 1]!.step} of this run are`;
  return {
    role: "user",
    content: `[${range} left out of this conversation to keep it within ${TRANSCRIPT_BUDGET_CHARS} characters; the run's log keeps them.]`,
  };
}

/** The steps in step order: as the fold keeps them, unless they are out of order. */
function inStepOrder(steps: readonly Step[]): readonly Step[] {
  const ordered = steps.every((step, index) => index === 0 || steps[index - 1]!.step < step.step);
  return ordered ? steps : [...steps].sort((a, b) => a.step - b.step);
}

/**
 * The transcript to send for the next model request of a run. Calls without
 * an outcome yet are left out of the tool messages (the runtime settles them
 * before it asks the model again), and steps older than the budget allows
 * are left out whole (see {@link transcriptStart}). Each step's messages are
 * built once per step object (see {@link stepMessagesCache}): a step costs
 * the same whether it is a run's 2nd or its 2,000th. The messages are shared
 * between the transcripts of later steps: a model must not change them.
 */
export function buildTranscript(agent: Agent, state: RunState): TranscriptMessage[] {
  const queued = state.queued;
  const messages: TranscriptMessage[] = [
    { role: "system", content: systemMessage(agent, queued?.outputSchema !== undefined) },
    { role: "user", content: cachedInputMessage(queued) },
  ];
  const steps = inStepOrder(state.steps);
  const start = transcriptStart(steps);
  if (start > 0) messages.push(leftOutMessage(steps, start));
  for (let index = start; index < steps.length; index += 1) {
    for (const message of stepMessages(steps[index]!)) messages.push(message);
  }
  return messages;
}

/** Steps already trimmed by {@link trimToTranscriptInPlace}. */
const trimmedSteps = new WeakSet<Step>();

/** `step` without what only a transcript reads: its text, items, call arguments and results. */
function trimmedStep(step: Step): Step {
  const trimmed: Step = {
    step: step.step,
    finish: step.finish,
    usage: step.usage,
    calls: step.calls.map(({ callId, name, called, outcome }) => ({
      callId,
      name,
      args: undefined,
      called,
      ...(outcome === undefined ? {} : { outcome: trimmedOutcome(outcome) }),
    })),
    ...(step.costUsd === undefined ? {} : { costUsd: step.costUsd }),
  };
  stepCharsCache.set(trimmed, stepChars(step));
  trimmedSteps.add(trimmed);
  return trimmed;
}

function trimmedOutcome(outcome: CallOutcome): CallOutcome {
  return outcome.kind === "result"
    ? { kind: "result", ok: outcome.ok, truncated: outcome.truncated }
    : outcome;
}

/**
 * Trims the steps `state`'s transcript leaves out to their numbers: step,
 * finish, usage, cost, and each call's id, name and outcome without its
 * result. What the run loop needs of a past step (how many there were,
 * which calls are open, which tools ran) stays; a parent of a million
 * children keeps a few hundred bytes a left-out step, not its spawn items or
 * its collect pages. The transcript of the trimmed state is the one of the
 * whole.
 *
 * Trimmed in place, as core's `applyEventInPlace` folds: `state` must be its
 * caller's own. The steps left out are a prefix that only grows, so only
 * the steps left out since the last trim are trimmed, each replaced by a
 * new object in its place: one more step costs the same however many came
 * before. Returns `state`, or, when its steps are out of step order (a step
 * answered again), a new state with them in order.
 */
export function trimToTranscriptInPlace(state: RunState): RunState {
  const inOrder = inStepOrder(state.steps);
  const trimmed = inOrder === state.steps ? state : { ...state, steps: [...inOrder] };
  const steps = trimmed.steps;
  for (let index = transcriptStart(steps) - 1; index >= 0; index -= 1) {
    const step = steps[index]!;
    if (trimmedSteps.has(step)) break;
    steps[index] = trimmedStep(step);
  }
  return trimmed;
}
