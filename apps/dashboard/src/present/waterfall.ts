/**
 * Where a run's time went, from its log alone: a waterfall of bars on one
 * time axis — the wait in the queue, each model request, each tool call,
 * each park — and, while the run is open, what it is waiting on now.
 *
 * A worker appends a step's `model-responded` before its tools run, then its
 * tool calls and results together once the last call returns, each event
 * stamped when it happened (docs/architecture/worker.md). So past steps are
 * exact — a model request runs from the event before its `model-responded`
 * to it, a tool call from `tool-called` to its `tool-result` — and a step
 * whose tools are running shows its first pending call by name, since its
 * `model-responded`. While the model request is in flight the open bar is
 * the step.
 */
import type { RunEvent } from "@errand/core";

/** What a bar measures. */
export type WaterfallKind =
  /** From `run-queued` to the first `run-started`. */
  | "queued"
  /** One model request: from the event before its `model-responded` to it. */
  | "model"
  /** One tool call: `tool-called` to its `tool-result` (or its park). */
  | "tool"
  /** Parked: from `run-parked` until a `run-started` resumes the run. */
  | "wait"
  /** A step in flight (its model request, then its tool calls), or cut by the run's end. */
  | "step"
  /** An attempt lost with its worker: from its last event to the next `run-started`. */
  | "lost";

/**
 * How a bar ended: `ok`; `error` (a tool that answered an error, a model
 * request the run failed on); `parked` (a tool call that parked the run);
 * `cut` (ended by the run's end or a lost attempt, not by its own result);
 * `open` (still going at `now`).
 */
export type WaterfallOutcome = "ok" | "error" | "parked" | "cut" | "open";

/** One bar of the waterfall. */
export interface WaterfallBar {
  kind: WaterfallKind;
  /** For people: `model · step 2`, `lookup_population`, the park's reason. */
  label: string;
  startAt: string;
  endAt: string;
  /** Milliseconds from the run's creation to the bar's start. */
  offsetMs: number;
  durationMs: number;
  outcome: WaterfallOutcome;
  step?: number;
  /** The tool's name, on `tool` bars. */
  tool?: string;
  /** How many runs a `wait` bar waited for when it parked. */
  waitingFor?: number;
}

/** What an open run waits on: the waterfall's open bar. */
export type WaitingOn = Pick<WaterfallBar, "kind" | "label" | "step" | "tool" | "waitingFor"> & {
  since: string;
};

/** `GET /api/runs/:runId/waterfall`. */
export interface Waterfall {
  /** The run's creation (`run-queued`): the axis starts there. */
  startAt: string;
  /** Its settling, or `now` while it is open. */
  endAt: string;
  totalMs: number;
  bars: WaterfallBar[];
  /** Set while the run is open and waits on something. */
  waitingOn?: WaitingOn;
}

/** Where the scan stands between two events. */
type Phase =
  | { kind: "queued"; since: string }
  | { kind: "working"; since: string }
  | { kind: "parked"; since: string; reason: string; waitingFor: number; step: number }
  | { kind: "settled" };

interface OpenCall {
  at: string;
  name: string;
  step: number;
}

interface Scan {
  bars: Omit<WaterfallBar, "offsetMs" | "durationMs">[];
  phase: Phase;
  /** The last step's number (0 before the first). */
  step: number;
  /** The last step's calls without an outcome yet, by callId: their tool names. */
  pending: Map<string, string>;
  /** Calls whose `tool-called` has no result yet. */
  called: Map<string, OpenCall>;
  /** True when the next append ends the run (a step without calls, or an output recorded). */
  finishing: boolean;
  attempt: number;
}

type Bar = Scan["bars"][number];

function closeCalls(scan: Scan, at: string, outcome: WaterfallOutcome): void {
  for (const call of scan.called.values()) scan.bars.push(toolBar(call, at, outcome));
  scan.called.clear();
}

function toolBar(call: OpenCall, endAt: string, outcome: WaterfallOutcome): Bar {
  return {
    kind: "tool",
    label: call.name,
    tool: call.name,
    step: call.step,
    startAt: call.at,
    endAt,
    outcome,
  };
}

/** The bar of what `phase` was doing from its start until `at`, ended with `outcome`. */
function phaseBar(scan: Scan, at: string, outcome: WaterfallOutcome): Bar | undefined {
  const { phase } = scan;
  if (phase.kind === "queued") {
    return { kind: "queued", label: "queued", startAt: phase.since, endAt: at, outcome };
  }
  if (phase.kind === "parked") {
    const { reason, waitingFor, step } = phase;
    return {
      kind: "wait",
      label: reason,
      waitingFor,
      step,
      startAt: phase.since,
      endAt: at,
      outcome,
    };
  }
  if (phase.kind !== "working" || scan.finishing) return undefined;
  const [callId, name] = [...scan.pending][0] ?? [];
  if (callId !== undefined && name !== undefined) {
    const call = { at: phase.since, name, step: scan.step };
    return toolBar(call, at, outcome);
  }
  const step = scan.step + 1;
  const label = `step ${step}: model request, then its tool calls`;
  return { kind: "step", label, step, startAt: phase.since, endAt: at, outcome };
}

function endCall(scan: Scan, callId: string | undefined, at: string): void {
  if (callId !== undefined) scan.pending.delete(callId);
  if (scan.phase.kind === "working") scan.phase = { kind: "working", since: at };
}

function runStarted(scan: Scan, event: RunEvent & { type: "run-started" }): void {
  const lost = scan.phase.kind === "working";
  closeCalls(scan, event.at, "cut");
  const before = phaseBar(scan, event.at, lost ? "cut" : "ok");
  if (lost && before !== undefined) {
    scan.bars.push({
      ...before,
      kind: "lost",
      label: `attempt ${scan.attempt} lost: ${before.label}`,
    });
  } else if (before !== undefined) {
    scan.bars.push(before);
  }
  scan.attempt = event.data.attempt;
  scan.phase = { kind: "working", since: event.at };
}

function settled(scan: Scan, event: RunEvent & { type: "finished" | "failed" | "cancelled" }) {
  closeCalls(scan, event.at, "cut");
  const modelFailed = event.type === "failed" && event.data.code === "model_error";
  const open = phaseBar(scan, event.at, modelFailed ? "error" : "cut");
  if (open !== undefined && event.type !== "finished") {
    scan.bars.push(
      modelFailed && open.kind === "step"
        ? { ...open, kind: "model", label: `model · step ${open.step}` }
        : open,
    );
  }
  scan.phase = { kind: "settled" };
}

function apply(scan: Scan, event: RunEvent): void {
  switch (event.type) {
    case "run-queued":
      scan.phase = { kind: "queued", since: event.at };
      return;
    case "run-started":
      runStarted(scan, event);
      return;
    case "model-responded": {
      const since = scan.phase.kind === "working" ? scan.phase.since : event.at;
      const { step, calls } = event.data;
      scan.bars.push({
        kind: "model",
        label: `model · step ${step}`,
        step,
        startAt: since,
        endAt: event.at,
        outcome: "ok",
      });
      scan.step = step;
      scan.pending = new Map(calls.map((call) => [call.callId, call.name]));
      scan.finishing = calls.length === 0;
      endCall(scan, undefined, event.at);
      return;
    }
    case "tool-called":
      scan.called.set(event.data.callId, {
        at: event.at,
        name: event.data.name,
        step: event.data.step,
      });
      return;
    case "tool-result": {
      const call = scan.called.get(event.data.callId);
      scan.called.delete(event.data.callId);
      if (call !== undefined)
        scan.bars.push(toolBar(call, event.at, event.data.ok ? "ok" : "error"));
      endCall(scan, event.data.callId, event.at);
      return;
    }
    case "output-recorded":
      scan.finishing = true;
      endCall(scan, event.data.callId, event.at);
      return;
    case "refused":
      if (event.data.callId !== undefined) endCall(scan, event.data.callId, event.at);
      return;
    case "run-parked": {
      const call = scan.called.get(event.data.callId);
      scan.called.delete(event.data.callId);
      if (call !== undefined) scan.bars.push(toolBar(call, event.at, "parked"));
      const { reason, waitFor, waitForChildren, step } = event.data;
      const waitingFor = waitForChildren ?? waitFor.length;
      scan.phase = { kind: "parked", since: event.at, reason, waitingFor, step };
      return;
    }
    case "finished":
    case "failed":
    case "cancelled":
      settled(scan, event);
      return;
    default:
      // `cancel-requested` (written by anyone, at any time) and event types
      // this dashboard does not know take no time of the run's own.
      return;
  }
}

function placed(bar: Bar, startMs: number): WaterfallBar {
  const start = Date.parse(bar.startAt);
  return {
    ...bar,
    offsetMs: Math.max(0, start - startMs),
    durationMs: Math.max(0, Date.parse(bar.endAt) - start),
  };
}

/**
 * The waterfall of a run's log (in seq order, starting with `run-queued`),
 * as it stands at `now` (an ISO instant): open bars end at `now`. Pure.
 */
export function buildWaterfall(events: readonly RunEvent[], now: string): Waterfall {
  const first = events[0];
  const startAt = first?.at ?? now;
  const scan: Scan = {
    bars: [],
    phase: { kind: "queued", since: startAt },
    step: 0,
    pending: new Map(),
    called: new Map(),
    finishing: false,
    attempt: 0,
  };
  for (const event of events) apply(scan, event);
  const endAt = scan.phase.kind === "settled" ? (events.at(-1)?.at ?? now) : now;
  const open = phaseBar(scan, endAt, "open");
  const startMs = Date.parse(startAt);
  const bars = [...scan.bars, ...(open === undefined ? [] : [open])].map((bar) =>
    placed(bar, startMs),
  );
  const waterfall: Waterfall = {
    startAt,
    endAt,
    totalMs: Math.max(0, Date.parse(endAt) - startMs),
    bars,
  };
  if (open === undefined) return waterfall;
  const { kind, label, step, tool, waitingFor } = open;
  const waitingOn: WaitingOn = {
    kind,
    label,
    since: open.startAt,
    ...(step === undefined ? {} : { step }),
    ...(tool === undefined ? {} : { tool }),
    ...(waitingFor === undefined ? {} : { waitingFor }),
  };
  return { ...waterfall, waitingOn };
}
