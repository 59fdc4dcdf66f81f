/**
 * Schemas and assertions shared by the preflight tests. Test-only: not
 * exported from the package.
 */
import { expect } from "vitest";
import { type JsonSchemaObject, preflightSchema, UNSUPPORTED_SCHEMA_PREFIX } from "../preflight.js";

/** A closed object schema listing every property as required: the shape the subset wants. */
export function object(properties: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return {
    type: "object",
    properties,
    required: Object.keys(properties),
    additionalProperties: false,
    ...extra,
  };
}

/** The plain string schema. */
export const text = { type: "string" };

/** `levels` objects nested through a property named `child`; the innermost holds a string. */
export function nested(levels: number): Record<string, unknown> {
  return levels === 1 ? object({ leaf: text }) : object({ child: nested(levels - 1) });
}

/** Asserts that `schema` is accepted, and returns the JSON Schema the preflight gives back. */
export function accepted(schema: unknown): JsonSchemaObject {
  const result = preflightSchema(schema);
  expect(result.ok ? "accepted" : result.reason).toBe("accepted");
  return result.ok ? result.jsonSchema : {};
}

/** Asserts that `schema` is refused with a reason that has the prefix, and returns the reason. */
export function reasonFor(schema: unknown): string {
  const result = preflightSchema(schema);
  expect(result.ok).toBe(false);
  const reason = result.ok ? "" : result.reason;
  expect(reason.startsWith(UNSUPPORTED_SCHEMA_PREFIX)).toBe(true);
  return reason;
}
