import { describe, expect, it } from "vitest";
import { UNSUPPORTED_SCHEMA_PREFIX } from "./preflight.js";
import { accepted, nested, object, reasonFor, text } from "./test-support/preflight-fixtures.js";

const P = UNSUPPORTED_SCHEMA_PREFIX;

describe("preflightSchema: accepted JSON Schemas", () => {
  it("accepts every supported keyword and returns the schema unchanged", () => {
    const schema = object(
      {
        title: {
          type: "string",
          description: "the title",
          minLength: 1,
          maxLength: 80,
          pattern: "^\\S",
        },
        when: { type: "string", format: "date-time", examples: ["2024-01-01T00:00:00Z"] },
        score: { type: "number", minimum: 0, exclusiveMaximum: 10, multipleOf: 0.5, default: 5 },
        count: { type: "integer", exclusiveMinimum: 0, maximum: 100 },
        done: { type: "boolean", title: "Done?", $comment: "set by the model", readOnly: false },
        tags: { type: "array", items: text, minItems: 0, maxItems: 5 },
        kind: { type: "string", enum: ["a", "b"] },
        version: { const: 2 },
        note: { type: ["string", "null"] },
        either: { anyOf: [text, { type: "null" }], description: "a string or null" },
      },
      { title: "Answer" },
    );
    expect(accepted(schema)).toEqual(schema);
  });

  it("drops $schema from the output", () => {
    const schema = object({ a: text }, { $schema: "https://json-schema.org/draft/2020-12/schema" });
    const jsonSchema = accepted(schema);
    expect(jsonSchema).not.toHaveProperty("$schema");
    expect(jsonSchema).toEqual(object({ a: text }));
  });

  it("returns a fresh, JSON-serialisable copy equal to its own JSON round trip", () => {
    const schema = object({
      a: { type: "number", default: -0 },
      b: { type: "array", items: text },
    });
    const jsonSchema = accepted(schema);
    expect(JSON.parse(JSON.stringify(jsonSchema))).toStrictEqual(jsonSchema);
    expect(jsonSchema).not.toBe(schema);
    expect(jsonSchema.properties).not.toBe(schema.properties);
    // -0 is accepted and written as 0: JSON has no negative zero.
    expect(Object.is((jsonSchema.properties as { a: { default: number } }).a.default, 0)).toBe(
      true,
    );
  });

  it("keeps the verdict on a schema's text, yet checks each object's JSON and answers a fresh copy each time", () => {
    const schema = () => object({ a: text, n: { type: "number" } }, { $schema: "x" });
    const first = accepted(schema());
    (first.properties as Record<string, unknown>).a = "changed by the caller";
    const second = accepted(schema());
    expect(second).toEqual(object({ a: text, n: { type: "number" } }));
    // The same JSON text, but a value JSON would drop: refused, not taken from the kept verdict.
    expect(reasonFor({ ...schema(), extra: undefined })).toContain("extra is undefined");
  });

  it("accepts $defs with local references, and recursion through $defs and through #", () => {
    const viaDefs = object(
      { tree: { $ref: "#/$defs/node", description: "the root node" } },
      {
        $defs: {
          node: object({
            name: text,
            children: { type: "array", items: { $ref: "#/$defs/node" } },
          }),
        },
      },
    );
    expect(accepted(viaDefs)).toEqual(viaDefs);
    const viaRoot = object({ name: text, children: { type: "array", items: { $ref: "#" } } });
    expect(accepted(viaRoot)).toEqual(viaRoot);
  });

  it("keeps a property named __proto__ as data", () => {
    const schema = JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"string"}},"required":["__proto__"],"additionalProperties":false}',
    );
    const jsonSchema = accepted(schema);
    expect(Object.keys(jsonSchema.properties as object)).toEqual(["__proto__"]);
  });
});

describe("preflightSchema: refused JSON Schemas", () => {
  it("refuses an object without additionalProperties: false, or with it true", () => {
    const { additionalProperties: _, ...open } = object({ a: text });
    expect(reasonFor(open)).toBe(
      `${P}the root schema does not set additionalProperties: false; add "additionalProperties": false (strict structured outputs need every object closed)`,
    );
    expect(
      reasonFor(object({ user: { ...object({ a: text }), additionalProperties: true } })),
    ).toBe(
      `${P}properties.user.additionalProperties is true; set it to false and list every property (strict structured outputs need every object closed)`,
    );
    expect(reasonFor(object({ map: { ...object({}), additionalProperties: text } }))).toMatch(
      /^unsupported JSON schema: properties\.map\.additionalProperties is a schema \(an open object or a map/,
    );
  });

  it("refuses an optional property, naming its full path", () => {
    const user = { ...object({ name: text, age: { type: "integer" } }), required: ["name"] };
    expect(reasonFor(object({ user }))).toBe(
      `${P}properties.user.properties.age is optional (not listed in required); make it required and nullable instead`,
    );
  });

  it("refuses required names that are not properties", () => {
    expect(reasonFor({ ...object({ a: text }), required: ["a", "ghost"] })).toBe(
      `${P}required[1] is "ghost", which is not in properties; remove it or add the property`,
    );
  });

  it.each([
    ["allOf", [text], "merge the branches into one schema"],
    ["not", text, "describe the constraint in the description instead"],
    ["if", text, "use anyOf over the alternatives instead"],
    [
      "oneOf",
      [text],
      "use anyOf (with mutually exclusive branches it means the same; in zod: z.union or z.discriminatedUnion, not z.xor)",
    ],
    ["dependentRequired", {}, "make every property required, and nullable where it may be absent"],
    [
      "patternProperties",
      {},
      "list fixed properties instead, or use an array of {key, value} objects for a map (in zod: no z.record)",
    ],
    ["minProperties", 1, "remove it: every property is required anyway"],
    [
      "prefixItems",
      [text],
      "use an object with named properties instead of a tuple (in zod: no z.tuple)",
    ],
    ["uniqueItems", true, "remove it and check the rule once the output is recorded"],
    ["nullable", true, 'write the null as a type instead: "type": ["string", "null"]'],
  ])("refuses %s with its fix", (keyword, value, fix) => {
    expect(reasonFor(object({ x: { type: "string", [keyword]: value } }))).toBe(
      `${P}properties.x uses ${keyword}, which strict structured outputs do not support; ${fix}`,
    );
  });

  it("refuses a keyword it does not know", () => {
    expect(reasonFor(object({ x: { type: "string", colour: "red" } }))).toBe(
      `${P}properties.x.colour is not a keyword strict structured outputs support; remove it`,
    );
  });

  it.each([
    [
      "a string type",
      { type: "string" },
      'has type "string"; the root must be an object ("type": "object"): wrap the value in a property of an object',
    ],
    [
      "a nullable object",
      { ...object({ a: text }), type: ["object", "null"] },
      'has type ["object","null"]; the root must be an object ("type": "object"): wrap the value in a property of an object',
    ],
    [
      "an anyOf",
      { anyOf: [object({ a: text }), object({ b: text })] },
      "is an anyOf; the root must be one object",
    ],
    [
      "a $ref",
      { $ref: "#/$defs/a", $defs: { a: object({ a: text }) } },
      "is a $ref; put the object schema itself at the root",
    ],
    [
      "an array",
      [object({ a: text })],
      "is an array; pass a zod object schema or a JSON Schema object",
    ],
    ["null", null, "is null; pass a zod object schema"],
    ["a number", 42, "is a number; pass a zod object schema"],
  ])("refuses a root that is %s", (_label, schema, expected) => {
    expect(reasonFor(schema).startsWith(`${P}the root schema ${expected}`)).toBe(true);
  });

  it("refuses a $ref that resolves to nothing, or to something that is not a schema", () => {
    expect(reasonFor(object({ a: { $ref: "#/$defs/missing" } }))).toBe(
      `${P}properties.a.$ref is "#/$defs/missing", which does not point to a schema in this document; add the definition (under $defs) or fix the pointer`,
    );
    expect(reasonFor(object({ a: { $ref: "#/required" } }))).toMatch(
      /which does not point to a schema in this document/,
    );
    expect(reasonFor(object({ a: { $ref: "other.json#/a" } }))).toMatch(
      /^unsupported JSON schema: properties\.a\.\$ref is "other\.json#\/a", which points outside this document/,
    );
    expect(reasonFor(object({ a: { $ref: "#node" } }))).toMatch(
      /names an anchor, not a JSON Pointer/,
    );
    const loop = object(
      { a: { $ref: "#/$defs/x" } },
      { $defs: { x: { $ref: "#/$defs/y" }, y: { $ref: "#/$defs/x" } } },
    );
    expect(reasonFor(loop)).toMatch(/leads into a loop of references that never reaches a schema/);
  });

  it("follows a long chain of references without exhausting the stack, and refuses it", () => {
    const count = 10_000;
    const $defs = Object.fromEntries(
      Array.from({ length: count }, (_, i) => [
        `d${i}`,
        i === count - 1 ? nested(2) : { $ref: `#/$defs/d${i + 1}` },
      ]),
    );
    expect(reasonFor(object({ start: { $ref: "#/$defs/d0" } }, { $defs }))).toMatch(
      /^unsupported JSON schema: the root schema nests schemas 10,004 deep/,
    );
    expect(
      reasonFor(
        object(
          { start: { $ref: "#/$defs/d0" } },
          { $defs: { ...$defs, [`d${count - 1}`]: nested(10) } },
        ),
      ),
    ).toMatch(
      /^unsupported JSON schema: properties\.start nests objects 11 levels deep through \$ref "#\/\$defs\/d0"/,
    );
  });

  it("refuses constraints next to $ref or anyOf", () => {
    const defs = { $defs: { s: text } };
    expect(reasonFor(object({ a: { $ref: "#/$defs/s", minLength: 1 } }, defs))).toBe(
      `${P}properties.a.minLength stands next to $ref, which strict structured outputs do not support; move it into the referenced schema`,
    );
    expect(reasonFor(object({ a: { anyOf: [text, { type: "null" }], type: "string" } }))).toBe(
      `${P}properties.a.type stands next to anyOf, which strict structured outputs do not support; move it into each branch of anyOf`,
    );
  });

  it("refuses schemas without a type, boolean schemas, and arrays without one items schema", () => {
    expect(reasonFor(object({ any: {} }))).toMatch(
      /^unsupported JSON schema: properties\.any has no type/,
    );
    expect(reasonFor(object({ any: true }))).toBe(
      `${P}properties.any is the boolean schema true; write an object schema with a type instead`,
    );
    expect(reasonFor(object({ list: { type: "array" } }))).toBe(
      `${P}properties.list is an array without items; add "items" with the schema of every element`,
    );
    expect(reasonFor(object({ pair: { type: "array", items: [text, text] } }))).toMatch(
      /^unsupported JSON schema: properties\.pair\.items is a list of schemas \(a tuple\)/,
    );
  });

  it("accepts a pattern errand matches in linear time, however it would backtrack, and refuses one it cannot", () => {
    accepted(object({ s: { type: "string", pattern: "^(a+)+$" } }));
    accepted(object({ s: { type: "string", pattern: "^\\u0041[\\w.-]+\\d{2,4}$" } }));
    expect(reasonFor(object({ s: { type: "string", pattern: "^(a)\\1$" } }))).toBe(
      `${P}properties.s.pattern is "^(a)\\\\1$", which errand cannot match in linear time (invalid escape sequence: \`\\1\`); rewrite it without backreferences, lookaround or repeat counts over 1,000`,
    );
    expect(reasonFor(object({ s: { type: "string", pattern: "^(?=a)a" } }))).toMatch(
      /^unsupported JSON schema: properties\.s\.pattern is "\^\(\?=a\)a", which errand cannot match in linear time \(invalid or unsupported Perl syntax/,
    );
    expect(reasonFor(object({ s: { type: "string", pattern: "a{1001}" } }))).toMatch(
      /pattern is "a\{1001\}", which errand cannot match in linear time \(invalid repeat count/,
    );
  });

  it("refuses keyword values strict structured outputs cannot use", () => {
    expect(reasonFor(object({ u: { type: "string", format: "uri" } }))).toBe(
      `${P}properties.u.format is "uri", which strict structured outputs do not support (supported: date-time, time, date, duration, email, hostname, ipv4, ipv6, uuid); remove it, or express it with a pattern`,
    );
    expect(reasonFor(object({ s: { type: "string", pattern: "(" } }))).toMatch(
      /^unsupported JSON schema: properties\.s\.pattern is not a valid regular expression/,
    );
    expect(reasonFor(object({ n: { type: "number", pattern: "^1" } }))).toBe(
      `${P}properties.n.pattern applies to strings, but the schema's type is number; remove it or fix the type`,
    );
    expect(reasonFor(object({ d: { type: "date" } }))).toMatch(
      /^unsupported JSON schema: properties\.d\.type is "date", which is not a type/,
    );
    expect(reasonFor(object({ e: { type: "string", enum: ["a", 1] } }))).toBe(
      `${P}properties.e.enum[1] is 1, which does not match the schema's type string; change the value or the type`,
    );
    expect(reasonFor(object({ e: { enum: [{ a: 1 }] } }))).toMatch(
      /^unsupported JSON schema: properties\.e\.enum\[0\] is an object or array/,
    );
    expect(reasonFor(object({ o: { type: "object", additionalProperties: false } }))).toMatch(
      /^unsupported JSON schema: properties\.o is an object schema without properties/,
    );
  });

  it("refuses a schema nested deeper than errand checks", () => {
    let items: Record<string, unknown> = text;
    for (let i = 0; i < 150; i++) items = { type: "array", items };
    const reason = reasonFor(object({ deep: items }));
    expect(reason.endsWith("is nested more than 100 levels deep; flatten it")).toBe(true);
  });
});

describe("preflightSchema: values that are not JSON", () => {
  it.each([
    [
      "a Date default",
      { type: "string", default: new Date(0) },
      "properties.x.default is a Date, which is not JSON; write it as an ISO-8601 string",
    ],
    [
      "a NaN default",
      { type: "number", default: Number.NaN },
      "properties.x.default is NaN, which is not JSON; use a finite number or null",
    ],
    [
      "an Infinity example",
      { type: "number", examples: [1, Number.POSITIVE_INFINITY] },
      "properties.x.examples[1] is Infinity, which is not JSON; use a finite number or null",
    ],
    [
      "a BigInt const",
      { const: 1n },
      "properties.x.const is a BigInt (1n), which is not JSON; use a number or a string",
    ],
    [
      "a function description",
      { type: "string", description: () => "x" },
      "properties.x.description is a function, which is not JSON; remove it",
    ],
    [
      "an undefined default",
      { type: "string", default: undefined },
      "properties.x.default is undefined, which is not JSON; remove it or use null",
    ],
    [
      "a Map example",
      { type: "object", examples: [new Map()] },
      "properties.x.examples[0] is a Map, which is not JSON; use a plain object",
    ],
  ])("refuses %s", (_label, schema, expected) => {
    expect(reasonFor(object({ x: schema }))).toBe(`${P}${expected}`);
  });

  it("refuses a cyclic schema object without looping", () => {
    const schema: Record<string, unknown> = object({});
    (schema.properties as Record<string, unknown>).self = schema;
    schema.required = ["self"];
    expect(reasonFor(schema)).toBe(
      `${P}properties.self contains itself (a cycle), which JSON cannot represent; break the cycle`,
    );
  });
});
