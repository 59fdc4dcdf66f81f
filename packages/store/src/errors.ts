/**
 * The return codes of the store's Lua scripts, and the one function that turns
 * them into typed errors.
 */
import { ErrandError } from "@errand/core";
import { runNotFound } from "@errand/core/ops";

/** The numeric codes the scripts return first (see the header of each script under `lua/`). */
export const SCRIPT_CODES = {
  ok: 0,
  seqConflict: -1,
  runSettled: -2,
  outputAlreadyRecorded: -3,
  runNotFound: -4,
  runExists: -5,
  malformedArguments: -6,
  duplicate: -7,
} as const;

/**
 * Thrown by a fenced append whose expected seq is stale: another writer
 * appended first. Nothing was written. The writer re-reads the log: if another
 * attempt owns the run, it stops writing; if a cancel arrived, it cancels.
 */
export class SeqConflictError extends ErrandError {
  override readonly name = "SeqConflictError";
  /** The run's seq when the append was refused. */
  readonly currentSeq: number;

  constructor(runId: string, expectedSeq: number | "any", currentSeq: number) {
    super(
      "seq_conflict",
      `run ${runId}: append expected seq ${expectedSeq} but the log is at ${currentSeq}; another writer appended first`,
      { details: { runId, expectedSeq, currentSeq } },
    );
    this.currentSeq = currentSeq;
  }
}

/** True when `error` is a {@link SeqConflictError}: the only refusal worth a re-read and retry. */
export function isSeqConflict(error: unknown): error is SeqConflictError {
  return error instanceof SeqConflictError;
}

/** What the store knew about a script call, for the error message. */
export interface ScriptCallContext {
  runId: string;
  /** The seq the writer expected, or `"any"` for an unfenced append. */
  expectedSeq?: number | "any";
  /** The types of the events sent, in order. */
  eventTypes?: readonly string[];
}

/**
 * The reply of a store script: `[code, seq, index]` (index 1-based, 0 when
 * no event is to blame), and for a `duplicate` the runId its key names.
 */
export type ScriptReply = readonly [code: number, seq: number, index: number, runId?: string];

/**
 * The error a script reply stands for, or `undefined` for success. The only
 * place where script return codes become errors.
 */
export function errorFromScriptReply(
  [code, seq, index]: ScriptReply,
  { runId, expectedSeq, eventTypes = [] }: ScriptCallContext,
): ErrandError | undefined {
  if (code === SCRIPT_CODES.ok) return undefined;
  const details = { runId, currentSeq: seq, eventIndex: index - 1 };
  const culprit = `${eventTypes[index - 1] ?? "event"} (#${index} of the batch)`;
  switch (code) {
    case SCRIPT_CODES.seqConflict:
      return new SeqConflictError(runId, expectedSeq ?? "any", seq);
    case SCRIPT_CODES.runSettled:
      return new ErrandError(
        "run_settled",
        `run ${runId} has settled (seq ${seq}): nothing may follow its terminal event, so ${culprit} was refused`,
        { details },
      );
    case SCRIPT_CODES.outputAlreadyRecorded:
      return new ErrandError(
        "output_already_recorded",
        `run ${runId} already recorded its structured output: ${culprit} was refused`,
        { details },
      );
    case SCRIPT_CODES.runNotFound:
      return runNotFound(runId);
    case SCRIPT_CODES.runExists:
      return new ErrandError(
        "invalid_spec",
        index > 1
          ? `run ${runId}: run-queued may only open a log, but it is ${culprit}`
          : `run ${runId} already exists (seq ${seq}): run-queued may only open a log`,
        { details },
      );
    default:
      return new ErrandError(
        "internal",
        `run ${runId}: the store script refused its arguments (code ${code}); this is a bug in @errand/store`,
        { details: { ...details, code } },
      );
  }
}
