import { describe, expect, it } from "vitest";
import {
  SCHEMA_MAX_ENUM_VALUES,
  SCHEMA_MAX_JSON_CHARS,
  SCHEMA_MAX_OBJECT_DEPTH,
  SCHEMA_MAX_PROPERTIES,
  SCHEMA_MAX_SCHEMA_DEPTH,
  SCHEMA_MAX_TOTAL_CHARS,
} from "./json-schema/limits.js";
import { UNSUPPORTED_SCHEMA_PREFIX } from "./preflight.js";
import { accepted, nested, object, reasonFor, text } from "./test-support/preflight-fixtures.js";

const P = UNSUPPORTED_SCHEMA_PREFIX;

describe("preflightSchema: limits", () => {
  it(`accepts objects nested exactly ${SCHEMA_MAX_OBJECT_DEPTH} levels deep and refuses one more`, () => {
    accepted(nested(SCHEMA_MAX_OBJECT_DEPTH));
    const path = Array.from({ length: SCHEMA_MAX_OBJECT_DEPTH }, () => "properties.child").join(
      ".",
    );
    expect(reasonFor(nested(SCHEMA_MAX_OBJECT_DEPTH + 1))).toBe(
      `${P}${path} nests objects 11 levels deep, above the limit of 10; flatten the schema`,
    );
  });

  it("counts the nesting a $ref brings in", () => {
    const schema = object({ deep: { $ref: "#/$defs/deep" } }, { $defs: { deep: nested(10) } });
    expect(reasonFor(schema)).toBe(
      `${P}properties.deep nests objects 11 levels deep through $ref "#/$defs/deep", above the limit of 10; flatten the schema`,
    );
    accepted(object({ deep: { $ref: "#/$defs/deep" } }, { $defs: { deep: nested(9) } }));
  });

  const properties = (count: number) =>
    Object.fromEntries(Array.from({ length: count }, (_, i) => [`p${i}`, text]));

  it(`accepts ${SCHEMA_MAX_PROPERTIES} properties and refuses one more, counting definitions too`, () => {
    accepted(object(properties(SCHEMA_MAX_PROPERTIES)));
    expect(reasonFor(object(properties(SCHEMA_MAX_PROPERTIES + 1)))).toBe(
      `${P}properties.p5000 is object property number 5,001 of the schema, above the limit of 5,000 in total; use fewer properties`,
    );
    const withDefinition = object(properties(SCHEMA_MAX_PROPERTIES - 1), {
      $defs: { extra: object({ x: text, y: text }) },
    });
    expect(reasonFor(withDefinition)).toMatch(
      /^unsupported JSON schema: \$defs\.extra\.properties\.y is object property number 5,001/,
    );
  });

  it(`accepts ${SCHEMA_MAX_ENUM_VALUES} enum values in total and refuses one more`, () => {
    const values = (count: number, prefix: string) =>
      Array.from({ length: count }, (_, i) => `${prefix}${i}`);
    accepted(
      object({
        a: { type: "string", enum: values(600, "a") },
        b: { type: "string", enum: values(400, "b") },
      }),
    );
    expect(
      reasonFor(
        object({
          a: { type: "string", enum: values(600, "a") },
          b: { type: "string", enum: values(401, "b") },
        }),
      ),
    ).toBe(
      `${P}properties.b.enum[400] brings the number of enum values to 1,001, above the limit of 1,000 in total; use fewer enum values (or a string with a description)`,
    );
  });

  it(`accepts ${SCHEMA_MAX_TOTAL_CHARS} characters of names and values and refuses one more`, () => {
    // 4,000 property names of 30 characters each: exactly 120,000 characters.
    const names = Array.from({ length: 4_000 }, (_, i) => `p${i}`.padEnd(30, "x"));
    accepted(object(Object.fromEntries(names.map((name) => [name, text]))));
    const longer = [...names.slice(0, -1), `${names.at(-1)}y`];
    expect(reasonFor(object(Object.fromEntries(longer.map((name) => [name, text]))))).toBe(
      `${P}properties.${longer.at(-1)} brings the total length of property names, definition names, enum values and const values to 120,001 characters, above the limit of 120,000; shorten names and values`,
    );
    // const values count as well.
    const withConst = object({
      ...Object.fromEntries(names.slice(1).map((n) => [n, text])),
      c: { const: "x".repeat(30) },
    });
    expect(reasonFor(withConst)).toMatch(
      /^unsupported JSON schema: properties\.c\.const brings the total length .* to 120,001 characters/,
    );
  });

  it("limits the characters of one enum of more than 250 values to 15,000", () => {
    const values = (count: number, length: number) =>
      Array.from({ length: count }, (_, i) => String(i).padEnd(length, "v"));
    accepted(object({ pick: { type: "string", enum: values(250, 100) } }));
    accepted(object({ pick: { type: "string", enum: values(251, 59) } }));
    expect(reasonFor(object({ pick: { type: "string", enum: values(251, 60) } }))).toBe(
      `${P}properties.pick.enum has 251 values whose strings total 15,060 characters; an enum of more than 250 values may total at most 15,000; shorten the values or split the enum`,
    );
  });

  it(`accepts a schema of ${SCHEMA_MAX_JSON_CHARS} characters of JSON and refuses a longer one`, () => {
    const described = (chars: number) => {
      const shell = JSON.stringify(object({ a: { type: "string", description: "" } })).length;
      return object({ a: { type: "string", description: "d".repeat(chars - shell) } });
    };
    expect(JSON.stringify(described(SCHEMA_MAX_JSON_CHARS))).toHaveLength(SCHEMA_MAX_JSON_CHARS);
    accepted(described(SCHEMA_MAX_JSON_CHARS));
    expect(reasonFor(described(SCHEMA_MAX_JSON_CHARS + 1))).toBe(
      `${P}the root schema is 524,289 characters of JSON, above the limit of 524,288; shorten its descriptions or split the answer`,
    );
  });

  /** `links` definitions, each a bare `$ref` to the next, the last a string; the root refers to the first. */
  const refChain = (links: number) =>
    object(
      { start: { $ref: "#/$defs/d0" } },
      {
        $defs: Object.fromEntries(
          Array.from({ length: links }, (_, i) => [
            `d${i}`,
            i === links - 1 ? text : { $ref: `#/$defs/d${i + 1}` },
          ]),
        ),
      },
    );

  it(`refuses schemas nested more than ${SCHEMA_MAX_SCHEMA_DEPTH} deep through a chain of $refs, however long`, () => {
    // root, the start property, then d0 … d(n-1): n + 2 schemas deep.
    accepted(refChain(SCHEMA_MAX_SCHEMA_DEPTH - 2));
    const refused = `${P}the root schema nests schemas 65 deep (every property, item, anyOf branch and $ref on the way counts one), above the limit of 64; flatten the schema or shorten its chains of $ref`;
    expect(reasonFor(refChain(SCHEMA_MAX_SCHEMA_DEPTH - 1))).toBe(refused);
    expect(reasonFor(refChain(10_000))).toMatch(/nests schemas 10,002 deep/);
  });

  it("counts nesting through arrays too, and a recursive $ref once", () => {
    const arrays = (levels: number): unknown =>
      levels === 0 ? text : { type: "array", items: arrays(levels - 1) };
    accepted(object({ grid: arrays(SCHEMA_MAX_SCHEMA_DEPTH - 2) }));
    expect(reasonFor(object({ grid: arrays(SCHEMA_MAX_SCHEMA_DEPTH - 1) }))).toMatch(
      /^unsupported JSON schema: the root schema nests schemas 65 deep/,
    );
    const tree = object(
      { root: { $ref: "#/$defs/node" } },
      {
        $defs: {
          node: object({ children: { type: "array", items: { $ref: "#/$defs/node" } } }),
        },
      },
    );
    accepted(tree);
  });
});
