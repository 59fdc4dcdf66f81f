/**
 * zod 4 schemas as JSON Schema, through zod's own `z.toJSONSchema`.
 *
 * The conversion uses zod's `output` view (its default): what a successful
 * parse returns, which is what a run records. So a plain `z.object` is closed
 * (`additionalProperties: false`, faithful: zod strips unknown keys), a field
 * with `.default()` stays required, and a `.transform()`, whose output JSON
 * Schema cannot describe, is refused. A discriminated union is written as
 * `anyOf` rather than zod's `oneOf`: its branches are mutually exclusive by
 * their discriminator, so the two mean the same, and strict structured
 * outputs accept only `anyOf`.
 */
import { z } from "zod";
import type { SchemaNode } from "./json-schema/node.js";
import { refuseSchema } from "./schema-refusal.js";

/** True for a zod 4 schema (classic or mini). */
export function isZodSchema(value: unknown): value is z.core.$ZodType {
  if (typeof value !== "object" || value === null) return false;
  const internals: unknown = (value as { _zod?: unknown })._zod;
  return (
    typeof internals === "object" &&
    internals !== null &&
    typeof (internals as { def?: unknown }).def === "object" &&
    (internals as { traits?: unknown }).traits instanceof Set
  );
}

/** True for a zod 3 schema, which `z.toJSONSchema` cannot read. */
export function isZod3Schema(value: unknown): boolean {
  if (typeof value !== "object" || value === null || isZodSchema(value)) return false;
  const standard = (value as { "~standard"?: { vendor?: unknown } })["~standard"];
  return "_def" in value && standard?.vendor === "zod";
}

/** What to use instead of a zod type that JSON Schema cannot represent, by zod type name. */
const REPLACEMENTS: ReadonlyMap<string, string> = new Map([
  ["date", "use z.iso.datetime() (an ISO-8601 string) instead of z.date()"],
  ["bigint", "use z.number().int() or a string instead of z.bigint()"],
  [
    "transform",
    "remove the .transform(): the recorded output must be plain JSON, so transform it after the run",
  ],
  ["map", "use an array of {key, value} objects instead of z.map()"],
  ["set", "use z.array() instead of z.set()"],
  ["undefined", "use .nullable() instead of undefined"],
  ["void", "use .nullable() instead of void"],
  ["literal", "use z.null() instead of an undefined or bigint literal"],
  ["nan", "use z.number() instead of z.nan()"],
]);

/**
 * The JSON Schema of a zod 4 schema, or an `unsupported_schema` refusal that
 * names where the unrepresentable type is and what to use instead.
 */
export function zodToJsonSchema(schema: z.core.$ZodType): SchemaNode {
  let unrepresentable: { path: (string | number)[]; message: string; type: string } | undefined;
  let converted: unknown;
  try {
    converted = z.toJSONSchema(schema, {
      target: "draft-2020-12",
      io: "output",
      cycles: "ref",
      reused: "inline",
      unrepresentable: ({ path, message, zodSchema }) => {
        unrepresentable ??= { path, message, type: zodSchema._zod.def.type };
        return "any";
      },
      override: ({ zodSchema, jsonSchema }) => {
        const def = zodSchema._zod.def as { type: string; discriminator?: unknown };
        if (def.type === "union" && typeof def.discriminator === "string" && jsonSchema.oneOf) {
          jsonSchema.anyOf = jsonSchema.oneOf;
          delete jsonSchema.oneOf;
        }
      },
    });
  } catch (error) {
    refuseSchema(
      [],
      `is a zod schema that zod cannot convert to JSON Schema (${(error as Error).message}); simplify it`,
      error,
    );
  }
  if (unrepresentable !== undefined) {
    const instead =
      REPLACEMENTS.get(unrepresentable.type) ??
      "use a type with a JSON form (string, number, boolean, object, array, null)";
    refuseSchema(
      unrepresentable.path,
      `is a zod type that JSON Schema cannot represent (${unrepresentable.message}); ${instead}`,
    );
  }
  // zod attaches non-enumerable helpers (such as "~standard") to the root: keep only the JSON.
  return { ...(converted as SchemaNode) };
}
