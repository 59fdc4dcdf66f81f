/**
 * The model transcript of a run, rebuilt from its folded state alone: the
 * system instructions (plus the structured-output instruction when the run
 * carries a schema), the input, then every step's assistant message and one
 * tool message per call. Each assistant message carries what its step logged
 * for the provider to be sent back (its output items, reasoning included,
 * and its response id). A resumed run therefore sends the model exactly what
 * an uninterrupted run would have.
 */
import type { CallOutcome, RunState } from "@errand/core";
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

/** The steps in step order: as the fold keeps them, unless they are out of order. */
function inStepOrder(steps: readonly Step[]): readonly Step[] {
  const ordered = steps.every((step, index) => index === 0 || steps[index - 1]!.step < step.step);
  return ordered ? steps : [...steps].sort((a, b) => a.step - b.step);
}

/**
 * The transcript to send for the next model request of a run. Calls without
 * an outcome yet are left out of the tool messages (the runtime settles them
 * before it asks the model again). Each step's messages are built once per
 * step object (see {@link stepMessagesCache}): a step costs the same whether
 * it is a run's 2nd or its 2,000th. The messages are shared between the
 * transcripts of later steps: a model must not change them.
 */
export function buildTranscript(agent: Agent, state: RunState): TranscriptMessage[] {
  const queued = state.queued;
  const messages: TranscriptMessage[] = [
    { role: "system", content: systemMessage(agent, queued?.outputSchema !== undefined) },
    { role: "user", content: cachedInputMessage(queued) },
  ];
  for (const step of inStepOrder(state.steps)) {
    for (const message of stepMessages(step)) messages.push(message);
  }
  return messages;
}
