/**
 * Fires the run of one case of an evaluation whose candidate live workers
 * run (docs/architecture/evaluations.md#candidates-on-the-fleet): a spec
 * checked and fired as `fire` does, its `run-queued` carrying `evaluation`,
 * which no caller's spec can set — only `evaluate` marks a run as a case.
 */
import type { EvaluationMark } from "../evaluations/fleet-candidate.js";
import type { FireContext } from "./fire-context.js";
import { type CheckedSpec, fireChecked, preflightEach } from "./fire-many.js";
import type { FireSpec } from "./fire-spec.js";

/** `checked` with `evaluation` on the `run-queued` it makes. */
function marked(checked: CheckedSpec, evaluation: EvaluationMark): CheckedSpec {
  if (!checked.ok) return checked;
  const { prepared } = checked;
  return {
    ok: true,
    prepared: {
      ...prepared,
      queuedEvent(runId, at, trace) {
        const queued = prepared.queuedEvent(runId, at, trace);
        if (queued.type !== "run-queued") return queued;
        // A new event, not marked checked: the append validates it whole.
        return { ...queued, data: { ...queued.data, evaluation } };
      },
    },
  };
}

/** Fires `spec` as the run of a case of `evaluation`; resolves its runId, throws its refusal. */
export async function fireEvaluationCase(
  context: FireContext,
  spec: FireSpec,
  evaluation: EvaluationMark,
): Promise<string> {
  const [checked] = await preflightEach(context, [spec]);
  const [outcome] = await fireChecked(context, [marked(checked!, evaluation)]);
  if (!outcome!.ok) throw outcome!.error;
  return outcome!.runId;
}
