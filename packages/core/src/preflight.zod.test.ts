import { describe, expect, it } from "vitest";
import { z } from "zod";
import * as zm from "zod/mini";
import * as z3 from "zod/v3";
import { UNSUPPORTED_SCHEMA_PREFIX } from "./preflight.js";
import { accepted, object, reasonFor, text } from "./test-support/preflight-fixtures.js";

const P = UNSUPPORTED_SCHEMA_PREFIX;

/** The object schemas inside a JSON Schema value (not following references). */
function objectSchemas(value: unknown): Record<string, unknown>[] {
  if (typeof value !== "object" || value === null) return [];
  const own =
    !Array.isArray(value) && (value as { type?: unknown }).type === "object" ? [value] : [];
  return [...(own as Record<string, unknown>[]), ...Object.values(value).flatMap(objectSchemas)];
}

describe("preflightSchema: zod schemas", () => {
  it("converts a realistic nested zod schema with z.toJSONSchema and accepts it", () => {
    const Category = z.object({
      name: z.string(),
      get subcategories() {
        return z.array(Category);
      },
    });
    const Review = z.object({
      summary: z.string().min(1).describe("one sentence"),
      sentiment: z.enum(["positive", "neutral", "negative"]),
      score: z.number().int().min(1).max(5),
      reviewer: z.object({ name: z.string(), email: z.email().nullable() }),
      findings: z.array(
        z.discriminatedUnion("kind", [
          z.object({ kind: z.literal("bug"), severity: z.enum(["low", "high"]) }),
          z.object({ kind: z.literal("idea"), text: z.string() }),
        ]),
      ),
      category: Category,
      reviewedAt: z.iso.datetime(),
      note: z.string().nullable(),
    });
    const jsonSchema = accepted(Review);
    expect(jsonSchema).not.toHaveProperty("$schema");
    const properties = jsonSchema.properties as Record<string, Record<string, unknown>>;
    expect(jsonSchema.required).toEqual(Object.keys(properties));
    expect(properties.note).toEqual({ type: ["string", "null"] });
    // A discriminated union becomes anyOf: its branches exclude each other, and oneOf is refused.
    const findings = properties.findings!.items as Record<string, unknown>;
    expect(findings).toHaveProperty("anyOf");
    expect(findings).not.toHaveProperty("oneOf");
    // Every object zod wrote is closed: z.object strips unknown keys, so this is faithful.
    const objects = objectSchemas(jsonSchema);
    expect(objects.length).toBeGreaterThanOrEqual(5);
    for (const schema of objects) expect(schema.additionalProperties).toBe(false);
    expect(JSON.parse(JSON.stringify(jsonSchema))).toStrictEqual(jsonSchema);
  });

  it("accepts .nullable() and refuses .optional() and .nullish()", () => {
    expect(accepted(z.object({ age: z.number().nullable() })).properties).toEqual({
      age: { type: ["number", "null"] },
    });
    expect(reasonFor(z.object({ user: z.object({ age: z.number().optional() }) }))).toBe(
      `${P}properties.user.properties.age is optional (not listed in required); make it required and nullable instead`,
    );
    expect(reasonFor(z.object({ age: z.number().nullish() }))).toMatch(
      /properties\.age is optional/,
    );
  });

  it("refuses zod types JSON Schema cannot represent, at their path, with the replacement", () => {
    expect(reasonFor(z.object({ when: z.date() }))).toBe(
      `${P}properties.when is a zod type that JSON Schema cannot represent (Date cannot be represented in JSON Schema); use z.iso.datetime() (an ISO-8601 string) instead of z.date()`,
    );
    expect(reasonFor(z.object({ ids: z.array(z.bigint()) }))).toMatch(
      /^unsupported JSON schema: properties\.ids\.items is a zod type .*z\.bigint\(\)/,
    );
    expect(reasonFor(z.object({ n: z.string().transform(Number) }))).toMatch(
      /^unsupported JSON schema: properties\.n is a zod type .*remove the \.transform\(\)/,
    );
  });

  it("refuses zod shapes outside the subset with a zod-flavoured fix", () => {
    expect(reasonFor(z.object({ tags: z.record(z.string(), z.string()) }))).toMatch(
      /properties\.tags uses propertyNames.*no z\.record/,
    );
    expect(reasonFor(z.looseObject({ a: z.string() }))).toMatch(
      /additionalProperties is a schema .*z\.looseObject/,
    );
    expect(reasonFor(z.object({ v: z.unknown() }))).toMatch(
      /properties\.v has no type .*z\.any\(\) or z\.unknown\(\)/,
    );
    expect(reasonFor(z.object({ v: z.xor([z.string(), z.number()]) }))).toMatch(
      /properties\.v uses oneOf.*not z\.xor/,
    );
    expect(reasonFor(z.object({ p: z.tuple([z.string(), z.number()]) }))).toMatch(
      /properties\.p uses prefixItems/,
    );
    expect(reasonFor(z.string())).toMatch(/the root schema has type "string"/);
  });

  it("accepts zod mini and refuses zod 3 schemas with the reason", () => {
    expect(accepted(zm.object({ a: zm.string() }))).toEqual(object({ a: text }));
    expect(reasonFor(z3.object({ a: z3.string() }))).toBe(
      `${P}the root schema is a zod 3 schema; errand converts zod 4 schemas only: import { z } from "zod" with zod 4 installed`,
    );
  });

  it("answers the same zod schema object alike every time, each time with a copy of its own", () => {
    const Answer = z.object({ title: z.string(), tags: z.array(z.string()) });
    const first = accepted(Answer);
    // What one caller does with its copy never reaches the next caller's.
    (first.properties as Record<string, unknown>).title = "changed";
    first.extra = true;
    const second = accepted(Answer);
    expect(second).toEqual(object({ title: text, tags: { type: "array", items: text } }));
    expect(second).not.toBe(first);

    const Dated = z.object({ at: z.date() });
    expect(reasonFor(Dated)).toBe(reasonFor(Dated));
  });
});
