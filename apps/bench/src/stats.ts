/** The arithmetic of the figures: rates, percentiles and rounding. */

/** `count` per second over `elapsedMs`. */
export function perSecond(count: number, elapsedMs: number): number {
  return elapsedMs <= 0 ? 0 : (count * 1000) / elapsedMs;
}

/**
 * The `p`-th percentile (0 < p ≤ 100) of `values` by the nearest-rank method:
 * the smallest value with at least p % of the values at or below it. Throws
 * on an empty list.
 */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) throw new RangeError("percentile of no values");
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1]!;
}

/** `value` rounded to `digits` decimals. */
export function round(value: number, digits = 0): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}
