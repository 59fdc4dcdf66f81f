/**
 * A schema node as the subset walker sees it: a plain JSON object, read only
 * through its own keys (a keyword named `constructor` or `__proto__` is data).
 */

/** One schema object of a JSON Schema document. */
export type SchemaNode = Record<string, unknown>;

/** True for a JSON object (not null, not an array). */
export function isSchemaNode(value: unknown): value is SchemaNode {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** True when `node` has its own keyword `key`. */
export function hasKeyword(node: SchemaNode, key: string): boolean {
  return Object.hasOwn(node, key);
}

/** The value of `node`'s own keyword `key`, or `undefined` when it has none. */
export function keywordValue(node: SchemaNode, key: string): unknown {
  return Object.hasOwn(node, key) ? node[key] : undefined;
}

/** What kind of value `value` is, for a message: `an array`, `null`, `a string`, … */
export function describeKind(value: unknown): string {
  if (Array.isArray(value)) return "an array";
  return value === null ? "null" : `a ${typeof value}`;
}
