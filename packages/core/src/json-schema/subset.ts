/**
 * The walker of the structured-output subset (docs/architecture/structured-output.md#rule-6): what OpenAI's
 * strict structured outputs accept.
 *
 * - The root is one object schema (not a union, not a reference).
 * - Every object sets `additionalProperties: false` and lists every property
 *   in `required`; a field that may be absent is a union with `null` instead.
 * - Types are string, number, integer, boolean, object, array and null
 *   (alone or as a list); `enum`, `const`, `anyOf`, and `$defs` with local
 *   `$ref`s (recursion allowed). Strings may carry `pattern`, a supported
 *   `format`, `minLength`/`maxLength`; numbers `minimum`, `maximum`,
 *   `exclusiveMinimum`, `exclusiveMaximum`, `multipleOf`; arrays one `items`
 *   schema, `minItems`, `maxItems`. Annotations: `title`, `description`,
 *   `$comment`, `examples`, `default`, `readOnly`, `writeOnly`.
 * - Any other keyword is refused, with the fix for the well-known ones.
 * - The limits of {@link SCHEMA_MAX_OBJECT_DEPTH} and its siblings hold.
 *
 * The schema must already be lossless JSON (see `findLosslessJsonProblem`).
 */
import type { JsonPath } from "../json-path.js";
import { jsonPointerOf, parseLocalRef } from "../json-pointer.js";
import { refuseSchema } from "../schema-refusal.js";
import {
  ANNOTATION_KEYWORDS,
  DEFINITION_KEYWORDS,
  REFUSED_KEYWORDS,
  type SchemaTypeName,
  STRUCTURE_KEYWORDS,
  TYPED_KEYWORDS,
} from "./keywords.js";
import { SCHEMA_MAX_OBJECT_DEPTH } from "./limits.js";
import { describeKind, hasKeyword, isSchemaNode, keywordValue, type SchemaNode } from "./node.js";
import { checkReferences, type RefSite } from "./references.js";
import { SchemaTotals } from "./totals.js";
import {
  checkAnnotations,
  checkArrayBounds,
  checkNumberKeywords,
  checkScalarValues,
  checkStringKeywords,
  readTypes,
} from "./values.js";

/** Throws an `unsupported_schema` ErrandError unless `root` is inside the subset. */
export function checkStrictJsonSchema(root: SchemaNode): void {
  const walk = new SubsetWalk();
  walk.schema(root, [], 0);
  checkReferences({ schemas: walk.schemas, refs: walk.refs });
}

/** Keywords allowed next to `$ref` or `anyOf`: they add no constraint of their own. */
const NEUTRAL_KEYWORDS: ReadonlySet<string> = new Set([
  ...ANNOTATION_KEYWORDS,
  ...DEFINITION_KEYWORDS,
]);

class SubsetWalk {
  readonly schemas = new Map<string, SchemaNode>();
  readonly refs: RefSite[] = [];
  private readonly totals = new SchemaTotals();

  /** Checks the schema at `path`, which `level` objects enclose. */
  schema(node: unknown, path: JsonPath, level: number): void {
    if (!isSchemaNode(node)) refuseSchema(path, notASchema(node));
    this.schemas.set(jsonPointerOf(path), node);
    checkKeywordNames(node, path);
    if (path.length === 0) checkRoot(node);
    checkAnnotations(node, path);
    if (hasKeyword(node, "$ref")) this.ref(node, path, level);
    else if (hasKeyword(node, "anyOf")) this.anyOf(node, path, level);
    else this.typed(node, path, level);
    this.definitions(node, path);
  }

  private ref(node: SchemaNode, path: JsonPath, level: number): void {
    checkOnlyNeutralBeside(node, path, "$ref");
    const ref = node.$ref;
    if (typeof ref !== "string")
      refuseSchema([...path, "$ref"], "must be a string like #/$defs/<name>");
    const local = parseLocalRef(ref);
    if (!local.ok)
      refuseSchema([...path, "$ref"], `is ${JSON.stringify(ref)}, which ${local.problem}`);
    this.refs.push({ node, path, ref, pointer: local.pointer, level });
  }

  private anyOf(node: SchemaNode, path: JsonPath, level: number): void {
    checkOnlyNeutralBeside(node, path, "anyOf");
    const branches = node.anyOf;
    if (!Array.isArray(branches) || branches.length === 0) {
      refuseSchema([...path, "anyOf"], "must be a non-empty array of schemas");
    }
    branches.forEach((branch: unknown, index) => {
      this.schema(branch, [...path, "anyOf", index], level);
    });
  }

  private typed(node: SchemaNode, path: JsonPath, level: number): void {
    const types = readTypes(node, path);
    if (types.length === 0 && !hasKeyword(node, "enum") && !hasKeyword(node, "const")) {
      refuseSchema(
        path,
        'has no type (an empty schema allows anything, which strict structured outputs cannot express; in zod: z.any() or z.unknown()); give it a type, e.g. "type": "string"',
      );
    }
    checkKeywordsFitTypes(node, path, types);
    checkScalarValues(node, path, types, this.totals);
    checkStringKeywords(node, path);
    checkNumberKeywords(node, path);
    checkArrayBounds(node, path);
    if (types.includes("array")) this.items(node, path, level);
    if (types.includes("object")) this.object(node, path, level + 1);
  }

  private items(node: SchemaNode, path: JsonPath, level: number): void {
    const items = keywordValue(node, "items");
    if (items === undefined) {
      refuseSchema(path, 'is an array without items; add "items" with the schema of every element');
    }
    if (Array.isArray(items)) {
      refuseSchema(
        [...path, "items"],
        "is a list of schemas (a tuple); use one schema for every element, or an object with named properties",
      );
    }
    this.schema(items, [...path, "items"], level);
  }

  /** Checks an object schema at nesting level `level` (the root object is level 1). */
  private object(node: SchemaNode, path: JsonPath, level: number): void {
    if (level > SCHEMA_MAX_OBJECT_DEPTH) {
      refuseSchema(
        path,
        `nests objects ${level} levels deep, above the limit of ${SCHEMA_MAX_OBJECT_DEPTH}; flatten the schema`,
      );
    }
    checkClosed(node, path);
    const properties = keywordValue(node, "properties");
    if (!isSchemaNode(properties)) {
      refuseSchema(
        path,
        'is an object schema without properties; list them ("properties": {} for an object with no fields)',
      );
    }
    const required = readRequired(node, path, properties);
    for (const [name, property] of Object.entries(properties)) {
      const at = [...path, "properties", name];
      this.totals.addProperty(at, name);
      if (!required.has(name)) {
        refuseSchema(
          at,
          "is optional (not listed in required); make it required and nullable instead",
        );
      }
      this.schema(property, at, level);
    }
  }

  private definitions(node: SchemaNode, path: JsonPath): void {
    for (const keyword of DEFINITION_KEYWORDS) {
      const definitions = keywordValue(node, keyword);
      if (definitions === undefined) continue;
      if (!isSchemaNode(definitions))
        refuseSchema([...path, keyword], "must be an object of named schemas");
      for (const [name, definition] of Object.entries(definitions)) {
        const at = [...path, keyword, name];
        this.totals.addDefinition(at, name);
        // A definition is nested where it is used: its own objects start from level 0.
        this.schema(definition, at, 0);
      }
    }
  }
}

function notASchema(value: unknown): string {
  if (typeof value === "boolean") {
    return `is the boolean schema ${value}; write an object schema with a type instead`;
  }
  return `is ${describeKind(value)}, not a schema object; write an object schema with a type`;
}

function checkKeywordNames(node: SchemaNode, path: JsonPath): void {
  for (const key of Object.keys(node)) {
    const fix = REFUSED_KEYWORDS.get(key);
    if (fix !== undefined) {
      refuseSchema(path, `uses ${key}, which strict structured outputs do not support; ${fix}`);
    }
    if (!STRUCTURE_KEYWORDS.has(key) && !ANNOTATION_KEYWORDS.has(key) && !TYPED_KEYWORDS.has(key)) {
      refuseSchema([...path, key], "is not a keyword strict structured outputs support; remove it");
    }
  }
}

function checkRoot(root: SchemaNode): void {
  if (hasKeyword(root, "$ref")) {
    refuseSchema(
      [],
      "is a $ref; put the object schema itself at the root (definitions can stay in $defs)",
    );
  }
  if (hasKeyword(root, "anyOf")) {
    refuseSchema(
      [],
      'is an anyOf; the root must be one object: put the union in a property, e.g. {"type": "object", "properties": {"result": {"anyOf": [...]}}, "required": ["result"], "additionalProperties": false}',
    );
  }
  if (keywordValue(root, "type") !== "object") {
    const type = keywordValue(root, "type");
    const has = type === undefined ? "has no type" : `has type ${JSON.stringify(type)}`;
    refuseSchema(
      [],
      `${has}; the root must be an object ("type": "object"): wrap the value in a property of an object`,
    );
  }
}

function checkOnlyNeutralBeside(node: SchemaNode, path: JsonPath, keyword: "$ref" | "anyOf"): void {
  for (const key of Object.keys(node)) {
    if (key !== keyword && !NEUTRAL_KEYWORDS.has(key)) {
      const into = keyword === "$ref" ? "into the referenced schema" : "into each branch of anyOf";
      refuseSchema(
        [...path, key],
        `stands next to ${keyword}, which strict structured outputs do not support; move it ${into}`,
      );
    }
  }
}

function checkKeywordsFitTypes(
  node: SchemaNode,
  path: JsonPath,
  types: readonly SchemaTypeName[],
): void {
  for (const key of Object.keys(node)) {
    const typed = TYPED_KEYWORDS.get(key);
    if (typed === undefined || typed.types.some((type) => types.includes(type))) continue;
    const actual =
      types.length === 0 ? "the schema has no type" : `the schema's type is ${types.join(" or ")}`;
    refuseSchema(
      [...path, key],
      `applies to ${typed.plural}, but ${actual}; remove it or fix the type`,
    );
  }
}

function checkClosed(node: SchemaNode, path: JsonPath): void {
  const additional = keywordValue(node, "additionalProperties");
  if (additional === false) return;
  if (additional === undefined) {
    refuseSchema(
      path,
      'does not set additionalProperties: false; add "additionalProperties": false (strict structured outputs need every object closed)',
    );
  }
  const what =
    additional === true
      ? "is true"
      : "is a schema (an open object or a map; in zod: z.looseObject, .catchall or z.record)";
  refuseSchema(
    [...path, "additionalProperties"],
    `${what}; set it to false and list every property (strict structured outputs need every object closed)`,
  );
}

function readRequired(node: SchemaNode, path: JsonPath, properties: SchemaNode): Set<string> {
  const required = keywordValue(node, "required") ?? [];
  const at = [...path, "required"];
  if (!Array.isArray(required)) refuseSchema(at, "must be an array of property names");
  const names = new Set<string>();
  required.forEach((name: unknown, index) => {
    if (typeof name !== "string")
      refuseSchema([...at, index], "must be a property name (a string)");
    if (names.has(name))
      refuseSchema([...at, index], `repeats ${JSON.stringify(name)}; list each property once`);
    if (!Object.hasOwn(properties, name)) {
      refuseSchema(
        [...at, index],
        `is ${JSON.stringify(name)}, which is not in properties; remove it or add the property`,
      );
    }
    names.add(name);
  });
  return names;
}
