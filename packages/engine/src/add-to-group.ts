/**
 * Grouping by key in place: each item joins its key's list, so grouping n
 * items costs O(n). (Copying the list at each item, `[...(groups.get(key) ??
 * []), item]`, cost O(n²): half a million copies for a `fireMany` of 1,000
 * runs of one queue.)
 */

/** Adds `item` to the list of `key` in `groups`, starting the list when it has none. */
export function addToGroup<K, T>(groups: Map<K, T[]>, key: K, item: T): void {
  const group = groups.get(key);
  if (group === undefined) groups.set(key, [item]);
  else group.push(item);
}
