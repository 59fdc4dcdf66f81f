/**
 * The structured-output schema preflight (DESIGN §4.6): before a run is
 * enqueued, its `outputSchema` (a zod 4 schema or a JSON Schema object) is
 * turned into the JSON Schema the model will be given, or refused with a
 * reason that starts with `unsupported JSON schema: `, names the offending
 * place and says the fix. Nothing is thrown for a bad schema.
 *
 * ```ts
 * const checked = preflightSchema(z.object({ title: z.string(), score: z.number().nullable() }));
 * if (!checked.ok) throw new ErrandError("unsupported_schema", checked.reason);
 * checked.jsonSchema; // { type: "object", properties: …, required: [...], additionalProperties: false }
 * ```
 */
import { isErrandError } from "./errors.js";
import { SCHEMA_MAX_JSON_NESTING } from "./json-schema-limits.js";
import { describeKind, isSchemaNode } from "./json-schema-node.js";
import { checkStrictJsonSchema } from "./json-schema-subset.js";
import { findLosslessJsonProblem } from "./lossless-json.js";
import { refuseSchema } from "./schema-refusal.js";
import { isZod3Schema, isZodSchema, zodToJsonSchema } from "./zod-json-schema.js";

export { UNSUPPORTED_SCHEMA_PREFIX } from "./schema-refusal.js";

/** A JSON Schema object, as plain JSON data. */
export type JsonSchemaObject = Record<string, unknown>;

/** The outcome of {@link preflightSchema}. */
export type PreflightResult =
  | {
      ok: true;
      /**
       * The accepted schema as plain JSON (a fresh copy, equal to its own
       * JSON round trip), without the `$schema` key: what the model is given.
       */
      jsonSchema: JsonSchemaObject;
    }
  | {
      ok: false;
      /** `unsupported JSON schema: <where> <why>; <fix>`. */
      reason: string;
    };

/**
 * Checks a run's output schema against the subset strict structured outputs
 * accept. A zod 4 schema is converted with `z.toJSONSchema` first; anything
 * else is read as a JSON Schema object. Pure and total: every bad input is a
 * refusal, never an exception.
 */
export function preflightSchema(schema: unknown): PreflightResult {
  try {
    return { ok: true, jsonSchema: acceptedJsonSchema(schema) };
  } catch (error) {
    if (isErrandError(error, "unsupported_schema")) return { ok: false, reason: error.message };
    throw error;
  }
}

function acceptedJsonSchema(schema: unknown): JsonSchemaObject {
  if (isZod3Schema(schema)) {
    refuseSchema(
      [],
      'is a zod 3 schema; errand converts zod 4 schemas only: import { z } from "zod" with zod 4 installed',
    );
  }
  const candidate = isZodSchema(schema) ? zodToJsonSchema(schema) : schema;
  if (!isSchemaNode(candidate)) {
    refuseSchema(
      [],
      `is ${describeKind(candidate)}; pass a zod object schema or a JSON Schema object with "type": "object"`,
    );
  }
  const problem = findLosslessJsonProblem(candidate, { maxDepth: SCHEMA_MAX_JSON_NESTING });
  if (problem !== undefined) refuseSchema(problem.path, problem.problem);
  const { $schema: _dialect, ...jsonSchema } = JSON.parse(
    JSON.stringify(candidate),
  ) as JsonSchemaObject;
  checkStrictJsonSchema(jsonSchema);
  return jsonSchema;
}
