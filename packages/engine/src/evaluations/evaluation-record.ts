/**
 * The evaluation record (docs/architecture/evaluations.md#the-evaluation-record):
 * what an evaluation evaluates (its spec), where it stands (its state, with
 * the totals of its finished cases) and each case — the original run beside
 * the candidate's, their scores, the output's field-level diff and the tool
 * calls of each side. One zod schema per shape, the type inferred from it.
 * Totals are always the sum of the cases ({@link totalsOf}): a reader never
 * sees one disagree with the other.
 */
import { roundUsd } from "@errand/core/ops";
import { z } from "zod";

/** Which recorded runs an evaluation takes, when they are not named one by one. */
export const RunFilter = z.object({
  /** The agent the runs ran. */
  agent: z.string().min(1).optional(),
  /** How they ended. */
  status: z.enum(["succeeded", "failed", "cancelled"]).optional(),
  /** Created at or after this time (ISO-8601). */
  since: z.iso.datetime({ offset: true }).optional(),
  /** Created before this time (ISO-8601). */
  until: z.iso.datetime({ offset: true }).optional(),
  /** Fired with every one of these metadata labels. */
  metadata: z.record(z.string(), z.string()).optional(),
  /** The most runs to take, newest first. Default 100, at most 1,000. */
  limit: z.number().int().min(1).max(1000).optional(),
});
export type RunFilter = z.infer<typeof RunFilter>;

/** Runs named one by one, or a filter: what a saved set is made of. */
export const ResolvableSelection = z.union([
  z.object({ runIds: z.array(z.string().min(1)).min(1).max(1000) }),
  z.object({ filter: RunFilter }),
]);
export type ResolvableSelection = z.infer<typeof ResolvableSelection>;

/** The name of a saved run set: 1 to 128 of letters, digits, `.`, `_`, `-`, `:`. */
export const EvaluationSetName = z
  .string()
  .regex(/^[A-Za-z0-9._:-]{1,128}$/, "a set name is 1 to 128 of letters, digits, . _ - :");

/** The runs of an evaluation as it was asked for: ids, a filter, or a saved set by name. */
export const RunSelection = z.union([
  ...ResolvableSelection.options,
  z.object({ set: EvaluationSetName }),
]);
export type RunSelection = z.infer<typeof RunSelection>;

/**
 * A saved run set (docs/architecture/evaluations.md#saved-run-sets): the
 * selection it was saved from and the runIds it resolved to then, which is
 * what an evaluation of the set takes, every time.
 */
export const EvaluationSet = z.object({
  name: EvaluationSetName,
  createdAt: z.string(),
  runs: ResolvableSelection,
  runIds: z.array(z.string()).min(1),
});
export type EvaluationSet = z.infer<typeof EvaluationSet>;

/** What the candidate does with a tool call its original run's log cannot answer. */
export const UnrecordedCallPolicy = z.enum(["refuse", "fail", "live"]);
export type UnrecordedCallPolicy = z.infer<typeof UnrecordedCallPolicy>;

/** What an evaluation evaluates: written once, when it is created, and read to resume it. */
export const EvaluationSpec = z.object({
  evaluationId: z.string(),
  createdAt: z.string(),
  /** The selection as given, so the evaluation can be made again. */
  runs: RunSelection,
  /** The runs it resolved to, in case order. */
  runIds: z.array(z.string()),
  /**
   * The candidate's agent and version, and where it ran: `process` (agent
   * code in the calling process) or `fleet` (live workers of that version).
   * `runsOn` came after the first evaluations: a record without it ran in
   * `process`.
   */
  candidate: z.object({
    agent: z.string(),
    version: z.string(),
    runsOn: z.enum(["process", "fleet"]).optional(),
  }),
  tools: z.enum(["recorded", "live"]),
  onUnrecorded: UnrecordedCallPolicy,
  /** The names of its scorers, in order. */
  scorers: z.array(z.string()),
  /** Labels of the caller's own. */
  metadata: z.record(z.string(), z.string()),
});
export type EvaluationSpec = z.infer<typeof EvaluationSpec>;

/** What one side of a case spent and made. */
export const CaseSide = z.object({
  status: z.enum(["succeeded", "failed", "cancelled"]),
  output: z.unknown().optional(),
  text: z.string().optional(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
  costUsd: z.number().nonnegative(),
  tokens: z.number().int().nonnegative(),
  steps: z.number().int().nonnegative(),
  latencyMs: z.number().nonnegative(),
});
export type CaseSide = z.infer<typeof CaseSide>;

/** One tool call of a side, and where its answer came from. */
export const CaseToolCall = z.object({
  step: z.number().int().positive(),
  tool: z.string(),
  args: z.unknown(),
  ok: z.boolean(),
  result: z.unknown().optional(),
  error: z.string().optional(),
  /** `log`: answered from the original run's log; `live`: the tool ran; `refused`: answered with the unrecorded-call refusal. */
  answeredFrom: z.enum(["log", "live", "refused"]).optional(),
});
export type CaseToolCall = z.infer<typeof CaseToolCall>;

/** A call of the candidate that the original run's log could not answer. */
export const UnrecordedCall = z.object({
  tool: z.string(),
  args: z.unknown(),
  policy: UnrecordedCallPolicy,
});
export type UnrecordedCall = z.infer<typeof UnrecordedCall>;

/** One field the candidate's output changed: its JSON path, and the value on each side (absent when the field is missing there). */
export const FieldChange = z.object({
  path: z.string(),
  original: z.unknown().optional(),
  candidate: z.unknown().optional(),
});
export type FieldChange = z.infer<typeof FieldChange>;

/** What a scorer gave a case: a score from 0 to 1 and a note. */
export const CaseScore = z.object({
  scorer: z.string(),
  score: z.number().min(0).max(1),
  note: z.string().optional(),
});
export type CaseScore = z.infer<typeof CaseScore>;

/** One finished case: a recorded run beside what the candidate made of its input. */
export const EvaluationCase = z.object({
  runId: z.string(),
  /** Its place in the evaluation's runs. */
  index: z.number().int().nonnegative(),
  agent: z.string(),
  /** The candidate's status, output or text differ from the original's. */
  changed: z.boolean(),
  /** The candidate did not succeed (or could not be run). */
  failed: z.boolean(),
  original: CaseSide,
  candidate: CaseSide,
  scores: z.array(CaseScore),
  diff: z.array(FieldChange),
  toolCalls: z.object({ original: z.array(CaseToolCall), candidate: z.array(CaseToolCall) }),
  unrecordedCalls: z.array(UnrecordedCall),
});
export type EvaluationCase = z.infer<typeof EvaluationCase>;

/** What each side of every finished case spent, added up. */
const SideTotals = z.object({
  costUsd: z.number(),
  tokens: z.number(),
  steps: z.number(),
  latencyMs: z.number(),
});
type SideTotals = z.infer<typeof SideTotals>;

/** The sums over an evaluation's finished cases. */
export const EvaluationTotals = z.object({
  cases: z.number().int(),
  changed: z.number().int(),
  failed: z.number().int(),
  unrecordedCalls: z.number().int(),
  /** Each scorer's scores added up (its mean is this over `cases`). */
  scores: z.record(z.string(), z.number()),
  original: SideTotals,
  candidate: SideTotals,
});
export type EvaluationTotals = z.infer<typeof EvaluationTotals>;

/** Where an evaluation stands. */
export const EvaluationState = z.object({
  /** `running` while cases run; `interrupted` when stopped before its last case (resume it); `finished`. */
  status: z.enum(["running", "interrupted", "finished"]),
  updatedAt: z.string(),
  totals: EvaluationTotals,
});
export type EvaluationState = z.infer<typeof EvaluationState>;

/** A whole evaluation as read back: spec, state, and its cases, changed ones first. */
export interface Evaluation extends EvaluationSpec {
  status: EvaluationState["status"];
  updatedAt: string;
  totals: EvaluationTotals;
  /** Changed cases first, then failed ones, then the rest, each group in run order. */
  cases: EvaluationCase[];
}

function emptySide(): SideTotals {
  return { costUsd: 0, tokens: 0, steps: 0, latencyMs: 0 };
}

function addSide(sum: SideTotals, side: CaseSide): SideTotals {
  return {
    costUsd: roundUsd(sum.costUsd + side.costUsd),
    tokens: sum.tokens + side.tokens,
    steps: sum.steps + side.steps,
    latencyMs: sum.latencyMs + side.latencyMs,
  };
}

/** The totals of `cases`: every figure the sum of theirs. */
export function totalsOf(cases: readonly EvaluationCase[]): EvaluationTotals {
  const scores: Record<string, number> = {};
  let original = emptySide();
  let candidate = emptySide();
  for (const evaluationCase of cases) {
    for (const { scorer, score } of evaluationCase.scores) {
      scores[scorer] = (scores[scorer] ?? 0) + score;
    }
    original = addSide(original, evaluationCase.original);
    candidate = addSide(candidate, evaluationCase.candidate);
  }
  return {
    cases: cases.length,
    changed: cases.filter((c) => c.changed).length,
    failed: cases.filter((c) => c.failed).length,
    unrecordedCalls: cases.reduce((sum, c) => sum + c.unrecordedCalls.length, 0),
    scores,
    original,
    candidate,
  };
}

/** `cases` in report order: changed first, then failed, then the rest, each group in run order. */
export function reportOrder(cases: readonly EvaluationCase[]): EvaluationCase[] {
  const rank = (c: EvaluationCase) => (c.changed ? 0 : c.failed ? 1 : 2);
  return [...cases].sort((a, b) => rank(a) - rank(b) || a.index - b.index);
}
