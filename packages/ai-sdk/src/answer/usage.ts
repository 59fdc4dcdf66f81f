/**
 * An AI SDK usage object in errand's terms. Specifications `v3` and `v4`
 * nest the counts (`inputTokens.{total, noCache, cacheRead, cacheWrite}`,
 * `outputTokens.{total, text, reasoning}`); specification `v2` and some
 * providers send flat numbers (`inputTokens`, `cachedInputTokens`,
 * `reasoningTokens`). Both are read. Odd or absent counts are 0, and the
 * cache and reasoning counts are present only when the provider reported them.
 */
import type { Usage } from "@errand/core";
import { isObject } from "@errand/runtime/ops";

function count(value: unknown): number | undefined {
  return Number.isInteger(value) && (value as number) >= 0 ? (value as number) : undefined;
}

type Fields = Record<string, unknown>;

/** A nested group (`{ total, … }`) or a flat number, as the group's fields. */
function group(value: unknown): Fields {
  if (isObject(value)) return value;
  return { total: value };
}

/** The input total: `total`, else the sum of its parts when any is reported. */
function inputTotal(input: Fields): number {
  const total = count(input.total);
  if (total !== undefined) return total;
  const parts = [input.noCache, input.cacheRead, input.cacheWrite].map(count);
  return parts.reduce<number>((sum, part) => sum + (part ?? 0), 0);
}

/** The {@link Usage} of an AI SDK `usage` value (of a result or a `finish` stream part). */
export function readUsage(usage: unknown): Usage {
  const fields = isObject(usage) ? usage : {};
  const input = group(fields.inputTokens);
  const output = group(fields.outputTokens);
  const cachedInputTokens = count(input.cacheRead) ?? count(fields.cachedInputTokens);
  const cacheWriteTokens = count(input.cacheWrite);
  const reasoningTokens = count(output.reasoning) ?? count(fields.reasoningTokens);
  return {
    inputTokens: inputTotal(input),
    outputTokens: count(output.total) ?? 0,
    ...(cachedInputTokens === undefined ? {} : { cachedInputTokens }),
    ...(cacheWriteTokens === undefined ? {} : { cacheWriteTokens }),
    ...(reasoningTokens === undefined ? {} : { reasoningTokens }),
  };
}
