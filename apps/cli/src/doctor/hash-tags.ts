/**
 * Redis Cluster hash tags: which part of a key decides its slot. Keys that
 * one script touches must share a hash tag, or Redis Cluster refuses the script.
 */

/**
 * The part of `key` Redis Cluster hashes: the text between the first `{` and
 * the next `}` when it is not empty, else the whole key.
 */
export function hashTagOf(key: string): string {
  const open = key.indexOf("{");
  if (open === -1) return key;
  const close = key.indexOf("}", open + 1);
  if (close === -1 || close === open + 1) return key;
  return key.slice(open + 1, close);
}

/** A set of keys that must live on one slot, with a name for messages. */
export interface KeyGroup {
  readonly name: string;
  readonly keys: readonly string[];
}

/** The groups whose keys do not all share one hash tag. */
export function splitGroups(groups: readonly KeyGroup[]): KeyGroup[] {
  return groups.filter((group) => new Set(group.keys.map(hashTagOf)).size > 1);
}
