/**
 * The tool calls a recorded run made, as an index the candidate's calls are
 * answered from (docs/architecture/evaluations.md#recorded-tools): by tool
 * name and arguments equal as JSON, each recorded answer once in the order
 * the run made them, then the last one again for any further equal call. A
 * recorded result kept as a blob is answered in full, read from the store.
 * Reading is all it does: nothing here writes or runs a tool.
 */
import type { RunState } from "@errand/core";
import type { EventStore } from "@errand/store";
import type { z } from "zod";
import type { CaseToolCall } from "./evaluation-record.js";
import { canonicalJson } from "./json-diff.js";

/** A recorded answer: the value the tool returned, or the error it failed with. */
type RecordedAnswer = { ok: true; value: unknown } | { ok: false; error: string };

/** The recorded calls of one run. */
export interface RecordedCalls {
  /**
   * The next recorded answer of `tool` called with `args` (already parsed by
   * the tool's `parameters`, which the recorded arguments are parsed with
   * too), or `undefined` when the run never made that call.
   */
  answer(tool: string, args: unknown, parameters?: z.ZodType): Promise<RecordedAnswer | undefined>;
}

interface RecordedCall {
  tool: string;
  args: unknown;
  outcome: {
    ok: boolean;
    result?: unknown;
    error?: string;
    ref?: { ref: string; contentType: string };
  };
}

/** The calls of `state` that ran and have a result, in the order they were made. */
function callsThatRan(state: RunState): RecordedCall[] {
  return state.steps.flatMap((step) =>
    step.calls.flatMap((call) => {
      const outcome = call.outcome;
      if (outcome?.kind !== "result") return [];
      return [{ tool: call.name, args: call.args, outcome }];
    }),
  );
}

/** The tool calls of a side as a case shows them. */
export function caseToolCalls(state: RunState): CaseToolCall[] {
  return state.steps.flatMap((step) =>
    step.calls.flatMap((call): CaseToolCall[] => {
      const outcome = call.outcome;
      if (outcome === undefined || outcome.kind === "recorded") return [];
      if (outcome.kind === "refused") {
        return [
          { step: step.step, tool: call.name, args: call.args, ok: false, error: outcome.message },
        ];
      }
      return [
        {
          step: step.step,
          tool: call.name,
          args: call.args,
          ok: outcome.ok,
          ...(outcome.ok ? { result: outcome.result } : { error: outcome.error ?? "" }),
        },
      ];
    }),
  );
}

function parsedArgs(args: unknown, parameters: z.ZodType | undefined): unknown {
  if (parameters === undefined) return args;
  const parsed = parameters.safeParse(args);
  return parsed.success ? parsed.data : args;
}

async function recordedAnswerOf(store: EventStore, call: RecordedCall): Promise<RecordedAnswer> {
  const { outcome } = call;
  if (!outcome.ok) return { ok: false, error: outcome.error ?? "the tool failed" };
  if (outcome.ref === undefined) return { ok: true, value: outcome.result };
  const blob = await store.getBlob(outcome.ref.ref);
  if (blob === undefined) return { ok: true, value: outcome.result };
  const isJson = outcome.ref.contentType.startsWith("application/json");
  return { ok: true, value: isJson ? JSON.parse(blob.value) : blob.value };
}

/** The index of the calls `state` (a recorded run's folded log) made. */
export function recordedCalls(state: RunState, store: EventStore): RecordedCalls {
  const calls = callsThatRan(state);
  const served = new Map<string, number>();
  return {
    async answer(tool, args, parameters) {
      const wanted = canonicalJson(args);
      const matching = calls.filter(
        (call) => call.tool === tool && canonicalJson(parsedArgs(call.args, parameters)) === wanted,
      );
      if (matching.length === 0) return undefined;
      const key = `${tool}\u0000${wanted}`;
      const index = Math.min(served.get(key) ?? 0, matching.length - 1);
      served.set(key, index + 1);
      return recordedAnswerOf(store, matching[index]!);
    },
  };
}
