/**
 * Waitpoints (docs/architecture/tool-results.md#waitpoints): a tool call that waits for an answer
 * from outside the run. A waitpoint is named by a token that encodes its
 * run, step and call, so whoever answers it finds the run (and its shard)
 * from the token alone, and a call run again after a crash names the same
 * waitpoint.
 */
import { decodeUtf8Base64Url, encodeUtf8Base64Url } from "./base64url.js";
import { ErrandError } from "./errors.js";
import { isRunId } from "./run-id.js";
import type { RunState, WaitpointState } from "./run-state.js";

/** What a waitpoint token names: its run, and the call of that run that waits. */
export interface WaitpointAddress {
  runId: string;
  step: number;
  callId: string;
}

const TOKEN_SEPARATOR = ".";

/** The token of the waitpoint of call `callId` of step `step` of run `runId`: `<runId>.<step>.<callId as base64url>`. */
export function waitpointToken({ runId, step, callId }: WaitpointAddress): string {
  return [runId, String(step), encodeUtf8Base64Url(callId)].join(TOKEN_SEPARATOR);
}

/**
 * What `token` names. Throws an {@link ErrandError} `invalid_spec` for a
 * string that is not a waitpoint token.
 */
export function parseWaitpointToken(token: string): WaitpointAddress {
  const [runId, step, callId, ...rest] = token.split(TOKEN_SEPARATOR);
  const decoded = callId === undefined ? undefined : decodeUtf8Base64Url(callId);
  const stepNumber = Number(step);
  if (
    rest.length > 0 ||
    !isRunId(runId) ||
    !/^[1-9][0-9]*$/.test(step ?? "") ||
    !Number.isSafeInteger(stepNumber) ||
    decoded === undefined ||
    decoded === ""
  ) {
    throw new ErrandError(
      "invalid_spec",
      `not a waitpoint token: ${JSON.stringify(token)} (a token reads <runId>.<step>.<callId>)`,
      { details: { token } },
    );
  }
  return { runId, step: stepNumber, callId: decoded };
}

/** The waitpoint `token` of a folded run, if it has one. */
export function waitpointOf(state: RunState, token: string): WaitpointState | undefined {
  return state.waitpoints.find((waitpoint) => waitpoint.token === token);
}

/** The run's waitpoints still waiting for an answer (none once the run settled). */
export function openWaitpoints(state: RunState): WaitpointState[] {
  if (state.settledAt !== undefined) return [];
  return state.waitpoints.filter((waitpoint) => waitpoint.status === "waiting");
}

/**
 * The waitpoint a parked run waits on, if its last `run-parked` was for one:
 * what decides when the run's job may come back (an answer, or its timeout).
 */
export function parkedWaitpoint(state: RunState): WaitpointState | undefined {
  const { parked } = state;
  if (parked === undefined) return undefined;
  return state.waitpoints.find(
    (waitpoint) => waitpoint.step === parked.step && waitpoint.callId === parked.callId,
  );
}

/** Whether the waiting waitpoint `waitpoint` is past its timeout at `now`. */
export function isWaitpointOverdue(waitpoint: WaitpointState, now: Date): boolean {
  return (
    waitpoint.status === "waiting" &&
    waitpoint.timeoutAt !== undefined &&
    Date.parse(waitpoint.timeoutAt) <= now.getTime()
  );
}
