/**
 * The candidate's tools in recorded mode (docs/architecture/evaluations.md#recorded-tools):
 * each keeps its name, description and parameters — the model sees the same
 * tools — but its handler answers from the original run's log. A call the
 * log cannot answer is an unrecorded call, handled by the evaluation's
 * policy: `refuse` answers the documented refusal (the model reads it as a
 * failed call), `fail` fails the case (`unrecorded_call`), `live` runs the
 * tool. Only `live` ever runs a tool's own handler.
 */
import { FatalToolError, type Tool } from "@errand/runtime";
import type { CaseToolCall, UnrecordedCall, UnrecordedCallPolicy } from "./evaluation-record.js";
import type { RecordedCalls } from "./recorded-calls.js";

/** Where each call of a case was answered from, and the calls the log could not answer. */
export interface CallLedger {
  /** By callId. */
  answeredFrom: Map<string, NonNullable<CaseToolCall["answeredFrom"]>>;
  unrecorded: UnrecordedCall[];
}

/** An empty ledger. */
export function newCallLedger(): CallLedger {
  return { answeredFrom: new Map(), unrecorded: [] };
}

/** What the model reads for an unrecorded call under `refuse`. */
function unrecordedRefusal(tool: string): string {
  return `unrecorded_call: ${tool} was not called with these arguments in the recorded run, so this evaluation has no answer for it and did not run it. Answer without this call, or call it with the arguments of the recorded run.`;
}

/** The message of the case failure an unrecorded call makes under `fail`. */
function unrecordedFailure(tool: string): string {
  return `${tool} was called with arguments the recorded run never used (unrecorded_call), and the evaluation's policy is to fail the case; pass onUnrecorded: "refuse" or "live" to go on instead`;
}

/** `tool`, answering from `recorded` and handling unrecorded calls by `policy`. */
export function recordedTool(
  tool: Tool,
  recorded: RecordedCalls,
  policy: UnrecordedCallPolicy,
  ledger: CallLedger,
): Tool {
  return {
    ...tool,
    async handler(args, ctx) {
      const answer = await recorded.answer(tool.name, args, tool.parameters);
      if (answer !== undefined) {
        ledger.answeredFrom.set(ctx.callId, "log");
        if (!answer.ok) throw new Error(answer.error);
        return answer.value;
      }
      ledger.unrecorded.push({ tool: tool.name, args, policy });
      if (policy === "live") {
        ledger.answeredFrom.set(ctx.callId, "live");
        return tool.handler(args, ctx);
      }
      if (policy === "fail") {
        throw new FatalToolError(unrecordedFailure(tool.name), { code: "unrecorded_call" });
      }
      ledger.answeredFrom.set(ctx.callId, "refused");
      throw new Error(unrecordedRefusal(tool.name));
    },
  };
}
