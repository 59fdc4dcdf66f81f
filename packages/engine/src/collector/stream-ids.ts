/** Comparing Redis stream entry ids (`<ms>-<seq>`), which do not sort as strings. */

function parts(id: string): [bigint, bigint] {
  const [ms = "0", seq = "0"] = id.split("-");
  return [BigInt(ms), BigInt(seq)];
}

/** Negative, zero or positive as `a` comes before, at or after `b` in a stream. */
export function compareStreamIds(a: string, b: string): number {
  const [aMs, aSeq] = parts(a);
  const [bMs, bSeq] = parts(b);
  if (aMs !== bMs) return aMs < bMs ? -1 : 1;
  if (aSeq !== bSeq) return aSeq < bSeq ? -1 : 1;
  return 0;
}

/** The earlier of two stream ids. */
export function earlierStreamId(a: string, b: string): string {
  return compareStreamIds(a, b) <= 0 ? a : b;
}
