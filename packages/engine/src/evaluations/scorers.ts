/**
 * Scorers: functions of (the original result, the candidate's result, the
 * case) that give a score from 0 to 1 and a note. The four built-ins —
 * output schema valid, output equal, JSON field-level diff, text similarity
 * — are what `evaluate` scores with when given none.
 */
import type { RunResult } from "@errand/core";
import { compileOutputSchema } from "@errand/runtime/ops";
import { canonicalJson, jsonFieldChanges, leafCount } from "./json-diff.js";

/** What a scorer is told about the case besides the two results. */
export interface EvaluationCaseInput {
  /** The recorded run. */
  runId: string;
  /** The agent the recorded run ran. */
  agent: string;
  input: unknown;
  /** The JSON Schema the run's output had to match, when it had one. */
  outputSchema?: Record<string, unknown>;
  metadata: Record<string, string>;
}

/** What a scorer gives one case. */
export interface ScoreResult {
  /** From 0 (worst) to 1 (best). */
  score: number;
  note?: string;
}

/** A named scoring function. */
export interface Scorer {
  /** Unique within an evaluation: its scores are kept and added up under it. */
  name: string;
  score(
    original: RunResult,
    candidate: RunResult,
    evaluationCase: EvaluationCaseInput,
  ): ScoreResult | Promise<ScoreResult>;
}

/** What a result says: its structured output, else its text. */
function answerOf(result: RunResult): unknown {
  return result.output !== undefined ? result.output : (result.text ?? null);
}

/**
 * 1 when the candidate recorded an output that matches the run's output
 * schema, or the run had no schema and the candidate succeeded; else 0.
 */
export function outputSchemaValid(): Scorer {
  return {
    name: "output-schema-valid",
    score(_original, candidate, { outputSchema }) {
      if (candidate.status !== "succeeded") {
        return { score: 0, note: `the candidate ${candidate.status}` };
      }
      if (outputSchema === undefined) return { score: 1, note: "the run has no output schema" };
      const check = compileOutputSchema(outputSchema).check(candidate.output);
      return check.ok ? { score: 1 } : { score: 0, note: check.issues.join("; ") };
    },
  };
}

/** 1 when both sides ended with the same status and the same output (or text); else 0. */
export function outputEqual(): Scorer {
  return {
    name: "output-equal",
    score(original, candidate) {
      if (original.status !== candidate.status) {
        return { score: 0, note: `${original.status} → ${candidate.status}` };
      }
      const equal = canonicalJson(answerOf(original)) === canonicalJson(answerOf(candidate));
      return equal ? { score: 1 } : { score: 0, note: "the output differs" };
    },
  };
}

/** The share of the original output's fields the candidate left unchanged; the note names the changed ones. */
export function jsonFieldDiff(): Scorer {
  return {
    name: "json-field-diff",
    score(original, candidate) {
      const before = answerOf(original);
      const changes = jsonFieldChanges(before, answerOf(candidate));
      if (changes.length === 0) return { score: 1 };
      const fields = Math.max(leafCount(before), changes.length);
      const paths = changes.slice(0, 10).map((c) => c.path);
      const more =
        changes.length > paths.length ? ` and ${changes.length - paths.length} more` : "";
      return {
        score: Math.max(0, 1 - changes.length / fields),
        note: `${changes.length} field(s) changed: ${paths.join(", ")}${more}`,
      };
    },
  };
}

/** The words of `text`, lower-cased, each counted. */
function wordCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  return counts;
}

/**
 * The cosine similarity of the two answers' word counts (an output is read
 * as its JSON text): 1 for the same words as often, 0 for none in common.
 */
export function textSimilarity(): Scorer {
  return {
    name: "text-similarity",
    score(original, candidate) {
      const asText = (value: unknown) => (typeof value === "string" ? value : canonicalJson(value));
      const a = wordCounts(asText(answerOf(original)));
      const b = wordCounts(asText(answerOf(candidate)));
      if (a.size === 0 && b.size === 0) return { score: 1 };
      let dot = 0;
      for (const [word, n] of a) dot += n * (b.get(word) ?? 0);
      const norm = (m: Map<string, number>) =>
        Math.sqrt([...m.values()].reduce((s, n) => s + n * n, 0));
      const score = norm(a) === 0 || norm(b) === 0 ? 0 : dot / (norm(a) * norm(b));
      return { score: Math.min(1, Math.round(score * 1e6) / 1e6) };
    },
  };
}

/** The scorers of an evaluation given none: all four built-ins. */
export function defaultScorers(): Scorer[] {
  return [outputSchemaValid(), outputEqual(), jsonFieldDiff(), textSimilarity()];
}
