import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { formatJsonPath } from "./json-path.js";
import { findLosslessJsonProblem } from "./lossless-json.js";

/** The problem as one readable line, the way the preflight prints it. */
function problemOf(value: unknown, maxDepth?: number): string | undefined {
  const found = findLosslessJsonProblem(value, maxDepth === undefined ? {} : { maxDepth });
  return found && `${formatJsonPath(found.path, "value")} ${found.problem}`;
}

class Point {
  constructor(
    readonly x: number,
    readonly y: number,
  ) {}
}

function containsNegativeZero(value: unknown): boolean {
  if (Object.is(value, -0)) return true;
  if (typeof value !== "object" || value === null) return false;
  return Object.values(value).some(containsNegativeZero);
}

/** Whether `value` comes back from `JSON.stringify` then `JSON.parse` strictly equal (same types, no holes). */
function survivesJsonRoundTrip(value: unknown): boolean {
  try {
    expect(JSON.parse(JSON.stringify(value))).toStrictEqual(value);
    return true;
  } catch {
    return false;
  }
}

describe("findLosslessJsonProblem", () => {
  it("accepts JSON data, null-prototype objects, shared (non-cyclic) references and -0", () => {
    const shared = { a: 1 };
    const bare = Object.create(null) as Record<string, unknown>;
    bare.key = "value";
    expect(
      problemOf({
        s: "x",
        n: 1.5,
        t: true,
        z: null,
        a: [1, [2]],
        bare,
        one: shared,
        two: shared,
        zero: -0,
      }),
    ).toBeUndefined();
  });

  it.each([
    [
      "undefined",
      { a: { b: undefined } },
      "a.b is undefined, which is not JSON; remove it or use null",
    ],
    ["NaN", [1, Number.NaN], "value[1] is NaN, which is not JSON; use a finite number or null"],
    [
      "Infinity",
      { x: Number.POSITIVE_INFINITY },
      "x is Infinity, which is not JSON; use a finite number or null",
    ],
    [
      "-Infinity",
      { x: Number.NEGATIVE_INFINITY },
      "x is -Infinity, which is not JSON; use a finite number or null",
    ],
    [
      "a BigInt",
      { big: 10n },
      "big is a BigInt (10n), which is not JSON; use a number or a string",
    ],
    ["a symbol", { s: Symbol("s") }, "s is a symbol, which is not JSON; use a string"],
    ["a function", { f: () => 1 }, "f is a function, which is not JSON; remove it"],
    [
      "a Date",
      { when: new Date(0) },
      "when is a Date, which is not JSON; write it as an ISO-8601 string",
    ],
    ["a RegExp", { re: /x/ }, "re is a RegExp, which is not JSON; write its source as a string"],
    ["a Map", { m: new Map() }, "m is a Map, which is not JSON; use a plain object"],
    ["a Set", { s: new Set() }, "s is a Set, which is not JSON; use an array"],
    [
      "a class instance",
      { p: new Point(1, 2) },
      "p is an instance of Point, which is not plain JSON data; use a plain object or array",
    ],
    [
      "a typed array",
      { bytes: new Uint8Array(2) },
      "bytes is an instance of Uint8Array, which is not plain JSON data; use a plain object or array",
    ],
    [
      "a boxed string",
      { s: new String("x") },
      "s is an instance of String, which is not plain JSON data; use a plain object or array",
    ],
  ])("refuses %s, naming its path", (_label, value, expected) => {
    expect(problemOf(value)).toBe(expected);
  });

  it("refuses a hole in a sparse array at the hole's index", () => {
    // biome-ignore lint/suspicious/noSparseArray: a sparse array is what is under test
    expect(problemOf({ list: [1, , 3] })).toBe(
      "list[1] is a hole in a sparse array, which JSON turns into null; fill it or use null",
    );
  });

  it("refuses a cycle without looping, naming where it closes", () => {
    const node: Record<string, unknown> = { name: "root", children: [] };
    (node.children as unknown[]).push({ parent: node });
    expect(problemOf(node)).toBe(
      "children[0].parent contains itself (a cycle), which JSON cannot represent; break the cycle",
    );
  });

  it("refuses what JSON would silently drop: getters, non-enumerable and symbol-keyed properties, named array properties", () => {
    const getter = Object.defineProperty({}, "g", { get: () => 1, enumerable: true });
    const hidden = Object.defineProperty({}, "h", { value: 1, enumerable: false });
    const keyed = { [Symbol("k")]: 1 };
    const named = Object.assign([1], { extra: true });
    expect(problemOf({ getter })).toMatch(/^getter\.g is a getter or setter/);
    expect(problemOf({ hidden })).toMatch(
      /^hidden\.h is a non-enumerable property, which JSON drops/,
    );
    expect(problemOf({ keyed })).toMatch(/^keyed has a symbol-keyed property, which JSON drops/);
    expect(problemOf({ named })).toMatch(/^named\.extra is a named property of an array/);
  });

  it("takes a non-enumerable ~standard (zod's Standard Schema interface on z.toJSONSchema's output) as no part of the value", () => {
    const schema = z.toJSONSchema(z.object({ name: z.string() }));
    expect(Object.getOwnPropertyDescriptor(schema, "~standard")?.enumerable).toBe(false);
    expect(problemOf(schema)).toBeUndefined();
    const enumerable = { "~standard": () => 1 };
    expect(problemOf(enumerable)).toMatch(/^\["~standard"\] is a function/);
  });

  it("refuses a string or key holding a lone surrogate, which is not Unicode text, and accepts a complete pair", () => {
    expect(problemOf({ note: "ok \ud83d\ude00 fine" })).toBeUndefined();
    expect(problemOf({ note: "ab\ud800" })).toBe(
      "note contains a lone surrogate (\\ud800 at index 2), which is not Unicode text and cannot be stored as JSON; remove it or complete the pair",
    );
    expect(problemOf(["\udc00x"])).toMatch(
      /^value\[0\] contains a lone surrogate \(\\udc00 at index 0\)/,
    );
    expect(problemOf({ inner: { "k\ud800": 1 } })).toMatch(
      /^inner has a key that contains a lone surrogate \(\\ud800 at index 1\)/,
    );
  });

  it("finds what hides in otherwise plain data: an index getter, a hole beside a named property, a problem deeper than 64 levels", () => {
    const indexGetter = Object.defineProperty([1, 2], 1, { get: () => 2, enumerable: true });
    // As many own names as a whole array of that length: the hole and the name cancel out.
    // biome-ignore lint/suspicious/noSparseArray: a sparse array is what is under test
    const holeAndName = Object.assign([1, , 3], { extra: true });
    let deep: unknown = { bad: undefined };
    for (let i = 0; i < 70; i++) deep = { next: deep };
    expect(problemOf({ indexGetter })).toMatch(/^indexGetter\[1\] is a getter or setter/);
    expect(problemOf({ holeAndName })).toMatch(/^holeAndName\[1\] is a hole in a sparse array/);
    expect(problemOf(deep)).toMatch(/^(next\.){70}bad is undefined/);
  });

  it("reports the first problem in document order", () => {
    expect(problemOf({ a: [1, { b: Number.NaN }], c: undefined })).toBe(
      "a[1].b is NaN, which is not JSON; use a finite number or null",
    );
  });

  it("limits nesting when asked, and walks deep values without exhausting the stack", () => {
    let deep: unknown = "leaf";
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(problemOf(deep)).toBeUndefined();
    expect(problemOf([[[1]]], 2)).toBe("value[0][0] is nested more than 2 levels deep; flatten it");
    expect(problemOf([[1]], 2)).toBeUndefined();
  });

  it("accepts every JSON value fast-check generates", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(findLosslessJsonProblem(value)).toBeUndefined();
      }),
    );
  });

  it("accepts exactly the values that come back from a JSON round trip unchanged", () => {
    const anything = fc.anything({
      withBigInt: true,
      withBoxedValues: true,
      withDate: true,
      withMap: true,
      withSet: true,
      withNullPrototype: false,
      withObjectString: true,
      withSparseArray: true,
      withTypedArray: true,
      withUnicodeString: true,
    });
    fc.assert(
      fc.property(anything, (value) => {
        fc.pre(!containsNegativeZero(value));
        expect(findLosslessJsonProblem(value) === undefined).toBe(survivesJsonRoundTrip(value));
      }),
      { numRuns: 500 },
    );
  });
});
