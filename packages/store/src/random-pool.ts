/**
 * Random bytes for run ids, drawn from a pool filled a few kilobytes at a
 * time: `crypto.randomBytes` for each id cost a call into the system's
 * random source per run fired. The bytes are the same cryptographic
 * randomness, each handed out once, as a copy the caller keeps.
 */
import { randomFillSync } from "node:crypto";

/** How many draws one fill of the pool serves. */
const DRAWS_PER_FILL = 256;

/** A source of `size` fresh random bytes per call, filled `size × 256` bytes at a time. */
export function randomPool(size: number): () => Uint8Array {
  const pool = Buffer.alloc(size * DRAWS_PER_FILL);
  let offset = pool.length;
  return () => {
    if (offset === pool.length) {
      randomFillSync(pool);
      offset = 0;
    }
    const drawn = Buffer.from(pool.subarray(offset, offset + size));
    offset += size;
    return drawn;
  };
}
