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

/** Where a call's answer came from. */
export type AnsweredFrom = NonNullable<CaseToolCall["answeredFrom"]>;

/**
 * Where each call of a case was answered from, and the calls the log could
 * not answer, told as they happen. A candidate in this process keeps them in
 * memory ({@link newCallLedger}); one on a worker writes each down before
 * its call is answered (`evaluation-calls.ts`), so they are all stored by the
 * time its run settles.
 */
export interface CallLedger {
  answered(callId: string, from: AnsweredFrom): void | Promise<void>;
  unrecorded(callId: string, call: UnrecordedCall): void | Promise<void>;
}

/** A ledger kept in memory. */
export interface MemoryLedger extends CallLedger {
  /** By callId. */
  answeredFrom: Map<string, AnsweredFrom>;
  /** In the order they were made. */
  unrecordedCalls: UnrecordedCall[];
}

/** An empty ledger kept in memory. */
export function newCallLedger(): MemoryLedger {
  const answeredFrom = new Map<string, AnsweredFrom>();
  const unrecordedCalls: UnrecordedCall[] = [];
  return {
    answeredFrom,
    unrecordedCalls,
    answered(callId, from) {
      answeredFrom.set(callId, from);
    },
    unrecorded(_callId, call) {
      unrecordedCalls.push(call);
    },
  };
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
        await ledger.answered(ctx.callId, "log");
        if (!answer.ok) throw new Error(answer.error);
        return answer.value;
      }
      await ledger.unrecorded(ctx.callId, { tool: tool.name, args, policy });
      if (policy === "live") {
        await ledger.answered(ctx.callId, "live");
        return tool.handler(args, ctx);
      }
      if (policy === "fail") {
        throw new FatalToolError(unrecordedFailure(tool.name), { code: "unrecorded_call" });
      }
      await ledger.answered(ctx.callId, "refused");
      throw new Error(unrecordedRefusal(tool.name));
    },
  };
}
