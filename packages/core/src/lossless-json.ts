/**
 * Lossless JSON: a value that `JSON.parse(JSON.stringify(value))` gives back
 * unchanged. Anything JSON would silently drop, rename or turn into something
 * else (undefined, NaN, ±Infinity, BigInt, Date, RegExp, Map, Set, functions,
 * symbols, class instances, sparse arrays, getters, cycles) is a problem,
 * reported with its path and what to do instead. So is a string (or key)
 * holding a lone UTF-16 surrogate: JavaScript round-trips it, but it is not
 * Unicode text, and other JSON readers (Redis' among them) refuse it.
 *
 * `-0` is accepted: JSON writes it as `0`, which is numerically equal
 * (`-0 === 0`), so no JSON reader can tell the difference. So is a
 * non-enumerable `~standard` property: the Standard Schema interface that
 * zod 4 attaches to the JSON Schema `z.toJSONSchema` returns, which describes
 * the value instead of being part of it.
 */
import type { JsonPath } from "./json-path.js";

/** The first place where a value is not lossless JSON. */
export interface LosslessJsonProblem {
  /** Where the problem is, outermost key first. */
  path: JsonPath;
  /** What is wrong and how to fix it, phrased to follow the path: `is a Date, which is not JSON; …`. */
  problem: string;
}

/** Options of {@link findLosslessJsonProblem}. */
export interface LosslessJsonOptions {
  /** Containers (objects and arrays) may be nested at most this deep. Default: unlimited. */
  maxDepth?: number;
}

/** A path as a chain of parent links, so that visiting a child does not copy its parent's path. */
interface PathLink {
  parent: PathLink | undefined;
  key: string | number;
}

function pathOf(link: PathLink | undefined): JsonPath {
  const path: (string | number)[] = [];
  for (let at = link; at !== undefined; at = at.parent) path.push(at.key);
  return path.reverse();
}

type Frame =
  | { kind: "visit"; value: unknown; at: PathLink | undefined; depth: number }
  | { kind: "leave"; container: object };

/**
 * The first problem found that keeps `value` from surviving a JSON round trip
 * exactly, or `undefined` when it is lossless JSON. Containers are checked
 * before their contents, in document order. Iterative,
 * so a deep value cannot exhaust the stack; a cycle is reported, never followed.
 */
export function findLosslessJsonProblem(
  value: unknown,
  options: LosslessJsonOptions = {},
): LosslessJsonProblem | undefined {
  const maxDepth = options.maxDepth ?? Number.POSITIVE_INFINITY;
  if (isSurelyLossless(value, 0, maxDepth)) return undefined;
  const ancestors = new Set<object>();
  const stack: Frame[] = [{ kind: "visit", value, at: undefined, depth: 0 }];
  for (let frame = stack.pop(); frame !== undefined; frame = stack.pop()) {
    if (frame.kind === "leave") {
      ancestors.delete(frame.container);
      continue;
    }
    const { at, depth } = frame;
    const current = frame.value;
    const problem = valueProblem(current, ancestors, depth, maxDepth);
    if (problem !== undefined) return { path: pathOf(at), problem };
    if (typeof current !== "object" || current === null) continue;
    const children = Array.isArray(current) ? arrayEntries(current) : objectEntries(current);
    if ("problem" in children) {
      return { path: [...pathOf(at), ...children.at], problem: children.problem };
    }
    ancestors.add(current);
    stack.push({ kind: "leave", container: current });
    for (let i = children.entries.length - 1; i >= 0; i--) {
      const [key, child] = children.entries[i]!;
      stack.push({ kind: "visit", value: child, at: { parent: at, key }, depth: depth + 1 });
    }
  }
  return undefined;
}

/** How deep {@link isSurelyLossless} (recursive) looks before it leaves a value to the walk. */
const SURE_MAX_DEPTH = 64;

/** `Object.prototype`'s accessor lookups: an own property's getter or setter, without a descriptor object. */
const { __lookupGetter__: lookupGetter, __lookupSetter__: lookupSetter } = Object.prototype as {
  __lookupGetter__(key: string): unknown;
  __lookupSetter__(key: string): unknown;
};
const isEnumerable = Object.prototype.propertyIsEnumerable;

/**
 * True when `value`, found at `depth`, is certainly lossless JSON within
 * `maxDepth`; false when it may not be (the walk then finds the problem, or
 * none). The common case, plain data, answered without the walk's frames,
 * path links, property descriptors and key lists: recursive, so only to
 * {@link SURE_MAX_DEPTH} (deeper values, and cycles, are the walk's).
 */
function isSurelyLossless(value: unknown, depth: number, maxDepth: number): boolean {
  switch (typeof value) {
    case "string":
      return !LONE_SURROGATE.test(value);
    case "number":
      return Number.isFinite(value);
    case "boolean":
      return true;
    case "object":
      if (value === null) return true;
      if (depth >= maxDepth || depth >= SURE_MAX_DEPTH) return false;
      return Array.isArray(value)
        ? isSurelyLosslessArray(value, depth, maxDepth)
        : isSurelyLosslessObject(value, depth, maxDepth);
    default:
      return false;
  }
}

/** {@link isSurelyLossless} of an array: plain, no holes, getters or other properties. */
function isSurelyLosslessArray(array: unknown[], depth: number, maxDepth: number): boolean {
  if (Object.getPrototypeOf(array) !== Array.prototype) return false;
  if (Object.getOwnPropertySymbols(array).length > 0) return false;
  // Its indices and `length`: no named property (a hole among them is found below).
  if (Object.getOwnPropertyNames(array).length !== array.length + 1) return false;
  for (let i = 0; i < array.length; i++) {
    if (!Object.hasOwn(array, i) || isAccessor(array, i)) return false;
    if (!isSurelyLossless(array[i], depth + 1, maxDepth)) return false;
  }
  return true;
}

/** {@link isSurelyLossless} of an object: plain, its own properties enumerable data under well-formed string keys. */
function isSurelyLosslessObject(object: object, depth: number, maxDepth: number): boolean {
  const prototype: unknown = Object.getPrototypeOf(object);
  if (prototype !== Object.prototype && prototype !== null) return false;
  if (Object.getOwnPropertySymbols(object).length > 0) return false;
  for (const key of Object.getOwnPropertyNames(object)) {
    if (LONE_SURROGATE.test(key)) return false;
    if (!isEnumerable.call(object, key) || isAccessor(object, key)) return false;
    if (!isSurelyLossless((object as Record<string, unknown>)[key], depth + 1, maxDepth)) {
      return false;
    }
  }
  return true;
}

/** True for an own getter or setter (`key` is an own property of `container`). */
function isAccessor(container: object, key: string | number): boolean {
  return (
    lookupGetter.call(container, String(key)) !== undefined ||
    lookupSetter.call(container, String(key)) !== undefined
  );
}

/** What is wrong with `value` itself (not its contents), found at `depth` below `ancestors`. */
function valueProblem(
  value: unknown,
  ancestors: ReadonlySet<object>,
  depth: number,
  maxDepth: number,
): string | undefined {
  if (typeof value !== "object" || value === null) return scalarProblem(value);
  if (ancestors.has(value)) {
    return "contains itself (a cycle), which JSON cannot represent; break the cycle";
  }
  const container = containerProblem(value);
  if (container !== undefined) return container;
  return depth >= maxDepth ? `is nested more than ${maxDepth} levels deep; flatten it` : undefined;
}

function scalarProblem(value: unknown): string | undefined {
  switch (typeof value) {
    case "string":
      return loneSurrogateProblem(value);
    case "undefined":
      return "is undefined, which is not JSON; remove it or use null";
    case "number":
      if (Number.isNaN(value)) return "is NaN, which is not JSON; use a finite number or null";
      if (!Number.isFinite(value)) {
        return `is ${value}, which is not JSON; use a finite number or null`;
      }
      return undefined;
    case "bigint":
      return `is a BigInt (${value}n), which is not JSON; use a number or a string`;
    case "symbol":
      return "is a symbol, which is not JSON; use a string";
    case "function":
      return "is a function, which is not JSON; remove it";
    default:
      return undefined;
  }
}

function containerProblem(value: object): string | undefined {
  if (value instanceof Date) return "is a Date, which is not JSON; write it as an ISO-8601 string";
  if (value instanceof RegExp) {
    return "is a RegExp, which is not JSON; write its source as a string";
  }
  if (value instanceof Map) return "is a Map, which is not JSON; use a plain object";
  if (value instanceof Set) return "is a Set, which is not JSON; use an array";
  const prototype: unknown = Object.getPrototypeOf(value);
  const plain = Array.isArray(value)
    ? prototype === Array.prototype
    : prototype === Object.prototype || prototype === null;
  if (plain) return undefined;
  return `is an instance of ${constructorName(prototype)}, which is not plain JSON data; use a plain object or array`;
}

function constructorName(prototype: unknown): string {
  const ctor = (prototype as { constructor?: { name?: unknown } } | null)?.constructor;
  return typeof ctor?.name === "string" && ctor.name !== "" ? ctor.name : "a class";
}

type Children = { entries: [string | number, unknown][] } | { at: JsonPath; problem: string };

function arrayEntries(array: readonly unknown[]): Children {
  const entries: [number, unknown][] = [];
  for (let i = 0; i < array.length; i++) {
    const descriptor = Object.getOwnPropertyDescriptor(array, i);
    if (descriptor === undefined) {
      return {
        at: [i],
        problem: "is a hole in a sparse array, which JSON turns into null; fill it or use null",
      };
    }
    if (!("value" in descriptor)) return { at: [i], problem: ACCESSOR_PROBLEM };
    entries.push([i, descriptor.value]);
  }
  for (const key of Reflect.ownKeys(array)) {
    if (typeof key === "symbol") return { at: [], problem: SYMBOL_KEY_PROBLEM };
    if (key !== "length" && !isIndexBelow(key, array.length)) {
      return {
        at: [key],
        problem: "is a named property of an array, which JSON drops; use an object",
      };
    }
  }
  return { entries };
}

function objectEntries(object: object): Children {
  const entries: [string, unknown][] = [];
  for (const key of Reflect.ownKeys(object)) {
    if (typeof key === "symbol") return { at: [], problem: SYMBOL_KEY_PROBLEM };
    const keyProblem = loneSurrogateProblem(key);
    if (keyProblem !== undefined) return { at: [], problem: `has a key that ${keyProblem}` };
    const descriptor = Object.getOwnPropertyDescriptor(object, key)!;
    if (!descriptor.enumerable && key === STANDARD_SCHEMA_KEY) continue;
    if (!("value" in descriptor)) return { at: [key], problem: ACCESSOR_PROBLEM };
    if (!descriptor.enumerable) {
      return {
        at: [key],
        problem: "is a non-enumerable property, which JSON drops; make it a plain property",
      };
    }
    entries.push([key, descriptor.value]);
  }
  return { entries };
}

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * What is wrong with a string holding half of a UTF-16 surrogate pair: it is
 * no Unicode text, so UTF-8 cannot carry it, and a JSON reader other than
 * JavaScript's (Redis' own, for one) refuses its `\uD800` escape.
 */
function loneSurrogateProblem(text: string): string | undefined {
  const found = LONE_SURROGATE.exec(text);
  if (found === null) return undefined;
  const unit = found[0].charCodeAt(0).toString(16);
  return `contains a lone surrogate (\\u${unit} at index ${found.index}), which is not Unicode text and cannot be stored as JSON; remove it or complete the pair`;
}

/** The property through which a value exposes the Standard Schema interface (not data). */
const STANDARD_SCHEMA_KEY = "~standard";

const ACCESSOR_PROBLEM =
  "is a getter or setter, not plain data; assign the value to a plain property";
const SYMBOL_KEY_PROBLEM = "has a symbol-keyed property, which JSON drops; use a string key";

function isIndexBelow(key: string, length: number): boolean {
  const index = Number(key);
  return Number.isInteger(index) && index >= 0 && index < length && String(index) === key;
}
