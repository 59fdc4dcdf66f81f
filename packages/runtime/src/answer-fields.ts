/**
 * Reading the fields of a model's answer that the `openai` client does not
 * check (it does not check the shape of a 200 answer): the helpers both API
 * shapes share, so that Chat Completions and Responses answers are tolerated
 * and refused by the same rules (the runtime README has the tables).
 */
import type { Usage } from "@errand/core";
import { ModelError } from "./errors.js";
import { decodeToolArguments } from "./model.js";

/** A JSON object's fields. */
export type Fields = Record<string, unknown>;

/** True for a JSON object (not `null`, not a list). */
export function isObject(value: unknown): value is Fields {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** What a value is, for a message: `null`, `a list`, `an object`, `a number`, … */
export function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/**
 * The error of an answer that cannot be read. Not retryable: the same server
 * is expected to answer the same request in the same shape.
 */
export function malformed(problem: string): ModelError {
  return new ModelError(`the model's answer is malformed: ${problem}`, { retryable: false });
}

/** A text field: `undefined` when absent or `null`; a `ModelError` naming `where` when not text. */
export function optionalText(value: unknown, where: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value;
  throw malformed(`${where} is ${kindOf(value)}, not text`);
}

/** A non-empty string, else `undefined`. */
export function nonEmptyText(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** A token count: a whole number ≥ 0, anything else 0. */
function tokenCount(value: unknown): number {
  return Number.isInteger(value) && (value as number) >= 0 ? (value as number) : 0;
}

/** A detail count, present only when the server reported a whole number ≥ 0. */
function detailCount(details: unknown, field: string): number | undefined {
  if (!isObject(details)) return undefined;
  const value = details[field];
  return Number.isInteger(value) && (value as number) >= 0 ? (value as number) : undefined;
}

/** Where each count of a usage object is, in one API's naming. */
export interface UsageFields {
  input: string;
  output: string;
  /** The object holding `cached_tokens`. */
  inputDetails: string;
  /** The object holding `reasoning_tokens`. */
  outputDetails: string;
}

/**
 * The {@link Usage} of an answer's `usage` object: odd or absent counts are 0;
 * the cached and reasoning counts are present only when the server reported them.
 */
export function readUsage(usage: unknown, fields: UsageFields): Usage {
  const counts = isObject(usage) ? usage : {};
  const cachedInputTokens = detailCount(counts[fields.inputDetails], "cached_tokens");
  const reasoningTokens = detailCount(counts[fields.outputDetails], "reasoning_tokens");
  return {
    inputTokens: tokenCount(counts[fields.input]),
    outputTokens: tokenCount(counts[fields.output]),
    ...(cachedInputTokens === undefined ? {} : { cachedInputTokens }),
    ...(reasoningTokens === undefined ? {} : { reasoningTokens }),
  };
}

/** Tool-call arguments: absent, `null` or `""` are `{}`; text is parsed; a JSON value is taken as is. */
export function readArguments(value: unknown): unknown {
  if (value === undefined || value === null || value === "") return {};
  return typeof value === "string" ? decodeToolArguments(value) : value;
}

/**
 * Gives the calls of one answer their ids: the call's own, unless it is
 * absent or already taken in this answer, else `call_<step>_<n>` (stable for
 * the step, unique in the answer).
 */
export class CallIds {
  private readonly taken = new Set<string>();

  constructor(private readonly step: number) {}

  /** The id of call number `number` (from 1) whose own id is `id`. */
  next(id: unknown, number: number): string {
    let callId = nonEmptyText(id);
    if (callId === undefined || this.taken.has(callId)) {
      callId = `call_${this.step}_${number}`;
      for (let suffix = 2; this.taken.has(callId); suffix++) {
        callId = `call_${this.step}_${number}_${suffix}`;
      }
    }
    this.taken.add(callId);
    return callId;
  }
}
