/**
 * Checks of the values of individual keywords of the structured-output
 * subset: `type`, annotations, string, number and array constraints, and the
 * scalar values of `enum` and `const`. Every check refuses through
 * {@link refuseSchema}, naming the keyword's path and the fix.
 */
import type { JsonPath } from "../json-path.js";
import { compileLinearPattern } from "../linear-pattern.js";
import { refuseSchema } from "../schema-refusal.js";
import { SCHEMA_TYPE_NAMES, type SchemaTypeName } from "./keywords.js";
import { SCHEMA_STRING_FORMATS } from "./limits.js";
import { keywordValue, type SchemaNode } from "./node.js";
import type { SchemaScalar, SchemaTotals } from "./totals.js";

const TYPE_LIST = [...SCHEMA_TYPE_NAMES].join(", ");

/** The `type` of `node` as a list of type names; `[]` when it has no `type`. */
export function readTypes(node: SchemaNode, path: JsonPath): SchemaTypeName[] {
  const type = keywordValue(node, "type");
  if (type === undefined) return [];
  const at = [...path, "type"];
  const names = typeof type === "string" ? [type] : type;
  if (!Array.isArray(names) || names.length === 0) {
    refuseSchema(at, `must be a type name or a non-empty list of them (${TYPE_LIST})`);
  }
  names.forEach((name: unknown, index) => {
    const where = typeof type === "string" ? at : [...at, index];
    if (typeof name !== "string" || !SCHEMA_TYPE_NAMES.has(name)) {
      refuseSchema(
        where,
        `is ${JSON.stringify(name)}, which is not a type strict structured outputs support; use one of ${TYPE_LIST}`,
      );
    }
    if (names.indexOf(name) !== index)
      refuseSchema(where, `repeats ${JSON.stringify(name)}; list each type once`);
  });
  return names as SchemaTypeName[];
}

const STRING_ANNOTATIONS = ["title", "description", "$comment"];
const BOOLEAN_ANNOTATIONS = ["readOnly", "writeOnly"];

/** Annotations carry the right kind of value (`default` may be any JSON). */
export function checkAnnotations(node: SchemaNode, path: JsonPath): void {
  for (const key of STRING_ANNOTATIONS) {
    const value = keywordValue(node, key);
    if (value !== undefined && typeof value !== "string")
      refuseSchema([...path, key], "must be a string");
  }
  for (const key of BOOLEAN_ANNOTATIONS) {
    const value = keywordValue(node, key);
    if (value !== undefined && typeof value !== "boolean") {
      refuseSchema([...path, key], "must be true or false");
    }
  }
  const examples = keywordValue(node, "examples");
  if (examples !== undefined && !Array.isArray(examples)) {
    refuseSchema([...path, "examples"], "must be an array of example values");
  }
}

const SUPPORTED_FORMATS: ReadonlySet<string> = new Set(SCHEMA_STRING_FORMATS);

/**
 * `pattern` compiles, both as the ECMAScript regular expression the model is
 * given and for errand's linear-time matching; `format` is a supported one;
 * lengths are counts.
 */
export function checkStringKeywords(node: SchemaNode, path: JsonPath): void {
  const pattern = keywordValue(node, "pattern");
  if (pattern !== undefined) {
    if (typeof pattern !== "string")
      refuseSchema([...path, "pattern"], "must be a regular expression string");
    try {
      new RegExp(pattern);
    } catch (error) {
      refuseSchema(
        [...path, "pattern"],
        `is not a valid regular expression (${(error as Error).message}); fix it`,
        error,
      );
    }
    const linear = compileLinearPattern(pattern);
    if (!linear.ok) {
      refuseSchema(
        [...path, "pattern"],
        `is ${JSON.stringify(pattern)}, which errand cannot match in linear time (${linear.problem}); rewrite it without backreferences, lookaround or repeat counts over 1,000`,
      );
    }
  }
  const format = keywordValue(node, "format");
  if (format !== undefined && (typeof format !== "string" || !SUPPORTED_FORMATS.has(format))) {
    refuseSchema(
      [...path, "format"],
      `is ${JSON.stringify(format)}, which strict structured outputs do not support (supported: ${SCHEMA_STRING_FORMATS.join(", ")}); remove it, or express it with a pattern`,
    );
  }
  checkCounts(node, path, ["minLength", "maxLength"]);
}

const NUMBER_BOUNDS = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"];

/** Number bounds are numbers; `multipleOf` is above zero. */
export function checkNumberKeywords(node: SchemaNode, path: JsonPath): void {
  for (const key of NUMBER_BOUNDS) {
    const value = keywordValue(node, key);
    if (value !== undefined && typeof value !== "number")
      refuseSchema([...path, key], "must be a number");
  }
  const multipleOf = keywordValue(node, "multipleOf");
  if (multipleOf !== undefined && !(typeof multipleOf === "number" && multipleOf > 0)) {
    refuseSchema([...path, "multipleOf"], "must be a number above zero");
  }
}

/** `minItems` and `maxItems` are counts. */
export function checkArrayBounds(node: SchemaNode, path: JsonPath): void {
  checkCounts(node, path, ["minItems", "maxItems"]);
}

function checkCounts(node: SchemaNode, path: JsonPath, keys: readonly string[]): void {
  for (const key of keys) {
    const value = keywordValue(node, key);
    if (value !== undefined && !(Number.isInteger(value) && (value as number) >= 0)) {
      refuseSchema([...path, key], "must be a whole number, 0 or more");
    }
  }
}

/**
 * `enum` is a non-empty list and it and `const` hold JSON scalars of the
 * schema's type; both are counted toward the totals.
 */
export function checkScalarValues(
  node: SchemaNode,
  path: JsonPath,
  types: readonly SchemaTypeName[],
  totals: SchemaTotals,
): void {
  const values = keywordValue(node, "enum");
  if (values !== undefined) {
    const at = [...path, "enum"];
    if (!Array.isArray(values) || values.length === 0) {
      refuseSchema(at, "must be a non-empty array of allowed values");
    }
    values.forEach((value: unknown, index) => {
      checkScalar(value, [...at, index], types);
    });
    totals.addEnum(at, values as SchemaScalar[]);
  }
  if (Object.hasOwn(node, "const")) {
    const value = node.const;
    checkScalar(value, [...path, "const"], types);
    totals.addConst([...path, "const"], value as SchemaScalar);
  }
}

function checkScalar(value: unknown, path: JsonPath, types: readonly SchemaTypeName[]): void {
  const own = scalarTypes(value);
  if (own === undefined) {
    refuseSchema(
      path,
      "is an object or array; allowed values must be strings, numbers, booleans or null",
    );
  }
  if (types.length > 0 && !own.some((type) => types.includes(type))) {
    refuseSchema(
      path,
      `is ${JSON.stringify(value)}, which does not match the schema's type ${types.join(" or ")}; change the value or the type`,
    );
  }
}

function scalarTypes(value: unknown): SchemaTypeName[] | undefined {
  if (value === null) return ["null"];
  switch (typeof value) {
    case "string":
      return ["string"];
    case "boolean":
      return ["boolean"];
    case "number":
      return Number.isInteger(value) ? ["number", "integer"] : ["number"];
    default:
      return undefined;
  }
}
