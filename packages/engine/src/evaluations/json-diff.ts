/**
 * A field-level diff of two JSON values: every leaf (a scalar, or an empty
 * array or object) whose value differs, by its JSON path (`$.a.b[0]`).
 * Objects are compared key by key, arrays index by index; a field on one
 * side only is a change with the other side absent. Also the one canonical
 * form of a JSON value (keys sorted) that decides "equal" everywhere in an
 * evaluation: the tool-call matching and the scorers use it.
 */
import type { FieldChange } from "./evaluation-record.js";

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `value` as JSON text with every object's keys sorted, so equal values give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (isPlainObject(value)) {
    const fields = Object.keys(value)
      .filter((key) => value[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`);
    return `{${fields.join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}

/** True when `a` and `b` are the same JSON value (object key order aside). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

function childPath(path: string, key: string | number): string {
  if (typeof key === "number") return `${path}[${key}]`;
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key)
    ? `${path}.${key}`
    : `${path}[${JSON.stringify(key)}]`;
}

function change(path: string, original: unknown, candidate: unknown): FieldChange {
  return {
    path,
    ...(original === undefined ? {} : { original }),
    ...(candidate === undefined ? {} : { candidate }),
  };
}

function diffInto(path: string, a: unknown, b: unknown, out: FieldChange[]): void {
  if (Array.isArray(a) && Array.isArray(b) && (a.length > 0 || b.length > 0)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++)
      diffInto(childPath(path, i), a[i], b[i], out);
    return;
  }
  if (
    isPlainObject(a) &&
    isPlainObject(b) &&
    (Object.keys(a).length > 0 || Object.keys(b).length > 0)
  ) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    for (const key of keys) diffInto(childPath(path, key), a[key], b[key], out);
    return;
  }
  const onOneSide = (a === undefined) !== (b === undefined);
  if (onOneSide || !jsonEqual(a, b)) out.push(change(path, a, b));
}

/** The leaves of `original` and `candidate` that differ, in path order; empty when they are equal. */
export function jsonFieldChanges(original: unknown, candidate: unknown): FieldChange[] {
  const out: FieldChange[] = [];
  diffInto("$", original, candidate, out);
  return out;
}

/** How many leaves `value` has (a scalar is one), so a diff can say what share changed. */
export function leafCount(value: unknown): number {
  if (Array.isArray(value) && value.length > 0)
    return value.reduce((n: number, v) => n + leafCount(v), 0);
  if (isPlainObject(value) && Object.keys(value).length > 0) {
    return Object.values(value).reduce((n: number, v) => n + leafCount(v), 0);
  }
  return 1;
}
