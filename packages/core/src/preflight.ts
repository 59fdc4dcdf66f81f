/**
 * The structured-output schema preflight (docs/architecture/structured-output.md#rule-6): before a run is
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
import { SCHEMA_MAX_JSON_CHARS, SCHEMA_MAX_JSON_NESTING } from "./json-schema/limits.js";
import { describeKind, isSchemaNode } from "./json-schema/node.js";
import { checkStrictJsonSchema } from "./json-schema/subset.js";
import { formatCount } from "./json-schema/totals.js";
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

/** What {@link preflightSchema} keeps of a zod schema's check: its accepted schema as JSON text, or its refusal. */
type KeptVerdict = { ok: true; json: string } | { ok: false; reason: string };

/**
 * The verdicts on the zod schemas already checked, by schema object. A zod
 * schema never changes once built (its methods return new schemas) and runs
 * fired alike pass the same object, so each is converted and checked once.
 */
const zodVerdicts = new WeakMap<object, KeptVerdict>();

/**
 * The JSON Schema objects already accepted, by their JSON text, each to the
 * JSON text of what was accepted: runs fired alike carry the same schema,
 * each as a new object, so the subset check runs once per schema text (the
 * lossless check, which the text cannot stand for, runs every time). Bounded
 * by {@link ACCEPTED_TEXTS_MAX_CHARS}: emptied when full.
 */
const acceptedTexts = new Map<string, string>();
let acceptedTextsChars = 0;

/** The most characters {@link acceptedTexts} holds, keys and values together. */
const ACCEPTED_TEXTS_MAX_CHARS = 1_048_576;

/** Keeps `accepted` as the verdict on `text`. */
function keepAccepted(text: string, accepted: string): void {
  const chars = text.length + accepted.length;
  if (chars > ACCEPTED_TEXTS_MAX_CHARS) return;
  if (acceptedTextsChars + chars > ACCEPTED_TEXTS_MAX_CHARS) {
    acceptedTexts.clear();
    acceptedTextsChars = 0;
  }
  acceptedTexts.set(text, accepted);
  acceptedTextsChars += chars;
}

/**
 * Checks a run's output schema against the subset strict structured outputs
 * accept. A zod 4 schema is converted with `z.toJSONSchema` first (once per
 * schema object: the verdict is kept); anything else is read as a JSON
 * Schema object (whose check is kept by its JSON text: the same schema
 * again, as any object, is accepted without checking the subset again).
 * Pure and total: every bad input is a refusal, never an exception.
 */
export function preflightSchema(schema: unknown): PreflightResult {
  return isZodSchema(schema) ? preflightZodSchema(schema) : checkSchema(schema);
}

/** {@link preflightSchema} of a zod schema: its kept verdict, else its check, kept. */
function preflightZodSchema(schema: object): PreflightResult {
  let verdict = zodVerdicts.get(schema);
  if (verdict === undefined) {
    const checked = checkSchema(schema);
    verdict = checked.ok ? { ok: true, json: JSON.stringify(checked.jsonSchema) } : checked;
    zodVerdicts.set(schema, verdict);
  }
  return verdict.ok
    ? { ok: true, jsonSchema: JSON.parse(verdict.json) as JsonSchemaObject }
    : { ok: false, reason: verdict.reason };
}

/** The check itself, on every call for a JSON Schema object. */
function checkSchema(schema: unknown): PreflightResult {
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
  const text = JSON.stringify(candidate);
  if (text.length > SCHEMA_MAX_JSON_CHARS) {
    refuseSchema(
      [],
      `is ${formatCount(text.length)} characters of JSON, above the limit of ${formatCount(SCHEMA_MAX_JSON_CHARS)}; shorten its descriptions or split the answer`,
    );
  }
  const known = acceptedTexts.get(text);
  if (known !== undefined) return JSON.parse(known) as JsonSchemaObject;
  const { $schema: _dialect, ...jsonSchema } = JSON.parse(text) as JsonSchemaObject;
  checkStrictJsonSchema(jsonSchema);
  keepAccepted(text, JSON.stringify(jsonSchema));
  return jsonSchema;
}
