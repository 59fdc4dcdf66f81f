/** Key prefixes that keep tests sharing one Redis out of each other's way. */
import { randomBytes } from "node:crypto";

/**
 * A fresh prefix `t-<label>-<random>` (or `t-<random>`): call it once per test
 * file or per test, and pass it wherever errand takes a key prefix. The label
 * is reduced to `[a-z0-9-]` so the prefix is safe in keys, queue names and logs.
 */
export function uniqueKeyPrefix(label?: string): string {
  const random = randomBytes(6).toString("hex");
  const cleaned = (label ?? "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40);
  return cleaned === "" ? `t-${random}` : `t-${cleaned}-${random}`;
}
