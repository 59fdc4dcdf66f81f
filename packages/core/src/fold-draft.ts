/**
 * The state one event is folded into (`fold.ts`), and every write to its
 * arrays. The fold either owns the state (an in-place fold: its arrays are
 * changed where they are) or works on a copy of its top level, whose arrays
 * are still the given state's: the first write to an array then copies it,
 * and an array the event leaves alone stays shared. Either way a write
 * never changes a step or a waitpoint object: a changed one is a new object
 * in its place (the runtime keeps each step's transcript by its step
 * object, `transcript.ts` in the runtime).
 */
import type { RunState, StepState, WaitpointState } from "./run-state.js";

/**
 * The highest step number a steps array holds, or more, kept while the
 * array is: a step numbered above it is known to be new without a search
 * through the steps before it. An array no fold indexed (a copy, a trimmed
 * one) is scanned once.
 */
const stepCeilings = new WeakMap<readonly StepState[], number>();

function stepCeiling(steps: readonly StepState[]): number {
  const known = stepCeilings.get(steps);
  if (known !== undefined) return known;
  const ceiling = steps.reduce((highest, s) => Math.max(highest, s.step), 0);
  stepCeilings.set(steps, ceiling);
  return ceiling;
}

/** A state being folded by one event; `state`'s top level is the draft's to change. */
export class FoldDraft {
  #ownsSteps: boolean;
  #ownsWaitpoints: boolean;

  /** @param ownsArrays Whether `state`'s arrays may be changed in place (else each is copied at its first write). */
  constructor(
    readonly state: RunState,
    ownsArrays: boolean,
  ) {
    this.#ownsSteps = ownsArrays;
    this.#ownsWaitpoints = ownsArrays;
  }

  /** Puts `step` last, in place of any step with its number (a step answered again). */
  putStep(step: StepState): void {
    const steps = this.#steps();
    const ceiling = stepCeiling(steps);
    if (step.step <= ceiling) {
      let kept = 0;
      for (const s of steps) if (s.step !== step.step) steps[kept++] = s;
      steps.length = kept;
    }
    steps.push(step);
    stepCeilings.set(steps, Math.max(ceiling, step.step));
  }

  /** Replaces the step at `index` (the same step number) by `step`. */
  replaceStep(index: number, step: StepState): void {
    this.#steps()[index] = step;
  }

  addWaitpoint(waitpoint: WaitpointState): void {
    this.#waitpoints().push(waitpoint);
  }

  /** Replaces the waitpoint at `index` (the same token) by `waitpoint`. */
  replaceWaitpoint(index: number, waitpoint: WaitpointState): void {
    this.#waitpoints()[index] = waitpoint;
  }

  #steps(): StepState[] {
    if (!this.#ownsSteps) {
      this.state.steps = [...this.state.steps];
      this.#ownsSteps = true;
    }
    return this.state.steps;
  }

  #waitpoints(): WaitpointState[] {
    if (!this.#ownsWaitpoints) {
      this.state.waitpoints = [...this.state.waitpoints];
      this.#ownsWaitpoints = true;
    }
    return this.state.waitpoints;
  }
}
