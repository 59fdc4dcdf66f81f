/**
 * What the fold knows about a run: the state every consumer (worker resume,
 * collector, dashboard, tests) reads, derived purely from the run's log.
 */
import type {
  EventDataOf,
  OutputItem,
  RefusalReason,
  ResourceRef,
  RunError,
  ToolCall,
  Usage,
} from "./events.js";

/** Where a run is in its life. */
export type RunStatus = "pending" | "queued" | "running" | "succeeded" | "failed" | "cancelled";

/** The statuses of a settled run. */
export type SettledStatus = Extract<RunStatus, "succeeded" | "failed" | "cancelled">;

/** What became of one tool call the model asked for. */
export type CallOutcome =
  | {
      kind: "result";
      ok: boolean;
      result?: unknown;
      error?: string;
      truncated: boolean;
      ref?: ResourceRef;
    }
  | { kind: "refused"; reason: RefusalReason; message: string }
  | { kind: "recorded" };

/** One tool call of a step, with its outcome once known. */
export interface CallState extends ToolCall {
  /** Set once `tool-called` was logged for this call. */
  called: boolean;
  /** Set once the call's result, refusal or recording was logged. */
  outcome?: CallOutcome;
}

/** One model response and the tool calls it produced. */
export interface StepState {
  step: number;
  text?: string;
  finish: string;
  usage: Usage;
  calls: CallState[];
  /** The response's output items in order, when its model logs them (see `OutputItem`). */
  items?: OutputItem[];
  /** The provider's id of the response, when its model logs it. */
  responseId?: string;
  /** What the response cost in US dollars, when its worker priced it. */
  costUsd?: number;
}

/** Where a waitpoint is: waiting, answered, or past its timeout without an answer. */
export type WaitpointStatus = "waiting" | "answered" | "timed-out";

/** One waitpoint of a run: its `waitpoint-created`, and how it was closed once it was. */
export interface WaitpointState extends EventDataOf<"waitpoint-created"> {
  status: WaitpointStatus;
  createdAt: string;
  /** The answer, once `waitpoint-completed` was folded. */
  answer?: unknown;
  answeredBy?: string;
  /** When it was answered, or when it timed out. */
  closedAt?: string;
}

/** The folded state of one run. */
export interface RunState {
  runId: string;
  /** The last `seq` folded; 0 for an empty log. */
  seq: number;
  status: RunStatus;
  /** The run's definition from `run-queued`, once folded. */
  queued?: EventDataOf<"run-queued">;
  createdAt?: string;
  startedAt?: string;
  settledAt?: string;
  attempts: number;
  workerId?: string;
  steps: StepState[];
  usage: Usage;
  /** The recorded structured output, once `output-recorded` was folded. */
  output?: { value: unknown; step: number; callId: string };
  cancelRequested?: EventDataOf<"cancel-requested">;
  /** The error of a failed run. */
  error?: RunError;
  /** The closing text of `finished`. */
  text?: string;
  /** What the run waits for while it is parked: its last `run-parked`, until a `run-started` resumes it. */
  parked?: EventDataOf<"run-parked"> & { since: string };
  /**
   * How long the run was parked in all, ms: each park from its `run-parked`
   * to the `run-started` that resumed it. Unset until a run resumed from a park.
   */
  parkedMs?: number;
  /** Every waitpoint the run created, in order. */
  waitpoints: WaitpointState[];
}
