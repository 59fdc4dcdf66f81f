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

/**
 * The transcript to send for the next model request of a run. Calls without
 * an outcome yet are left out of the tool messages (the runtime settles them
 * before it asks the model again).
 */
export function buildTranscript(agent: Agent, state: RunState): TranscriptMessage[] {
  const queued = state.queued;
  const messages: TranscriptMessage[] = [
    { role: "system", content: systemMessage(agent, queued?.outputSchema !== undefined) },
    { role: "user", content: inputMessage(queued?.input) },
  ];
  const steps = [...state.steps].sort((a, b) => a.step - b.step);
  for (const step of steps) {
    messages.push({
      role: "assistant",
      ...(step.text === undefined ? {} : { content: step.text }),
      calls: step.calls.map(({ callId, name, args }) => ({ callId, name, args })),
      ...(step.items === undefined ? {} : { items: step.items }),
      ...(step.responseId === undefined ? {} : { responseId: step.responseId }),
    });
    for (const call of step.calls) {
      if (call.outcome === undefined) continue;
      messages.push({
        role: "tool",
        callId: call.callId,
        name: call.name,
        content: toolMessageContent(call.outcome),
      });
    }
  }
  return messages;
}
