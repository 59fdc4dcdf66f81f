import { describe, expect, it } from "vitest";
import {
  SCHEMA_MAX_ENUM_VALUES,
  SCHEMA_MAX_OBJECT_DEPTH,
  SCHEMA_MAX_PROPERTIES,
  SCHEMA_MAX_TOTAL_CHARS,
} from "./json-schema-limits.js";
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
});
