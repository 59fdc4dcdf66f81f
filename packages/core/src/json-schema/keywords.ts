/**
 * The keywords of the strict structured-output subset: which ones are
 * accepted, which types each one applies to, and, for the JSON Schema
 * keywords strict structured outputs refuse, what to write instead.
 */

/** A JSON Schema `type` name that strict structured outputs accept. */
export type SchemaTypeName =
  | "string"
  | "number"
  | "integer"
  | "boolean"
  | "object"
  | "array"
  | "null";

/** Every accepted `type` name. */
export const SCHEMA_TYPE_NAMES: ReadonlySet<string> = new Set<SchemaTypeName>([
  "string",
  "number",
  "integer",
  "boolean",
  "object",
  "array",
  "null",
]);

/** Keywords that only apply to values of some types: the types, and a plural to name them. */
export interface TypedKeyword {
  types: readonly SchemaTypeName[];
  plural: string;
}

const STRINGS: TypedKeyword = { types: ["string"], plural: "strings" };
const NUMBERS: TypedKeyword = { types: ["number", "integer"], plural: "numbers" };
const ARRAYS: TypedKeyword = { types: ["array"], plural: "arrays" };
const OBJECTS: TypedKeyword = { types: ["object"], plural: "objects" };

/** The accepted keywords that apply to one kind of value. */
export const TYPED_KEYWORDS: ReadonlyMap<string, TypedKeyword> = new Map([
  ["pattern", STRINGS],
  ["format", STRINGS],
  ["minLength", STRINGS],
  ["maxLength", STRINGS],
  ["minimum", NUMBERS],
  ["maximum", NUMBERS],
  ["exclusiveMinimum", NUMBERS],
  ["exclusiveMaximum", NUMBERS],
  ["multipleOf", NUMBERS],
  ["items", ARRAYS],
  ["minItems", ARRAYS],
  ["maxItems", ARRAYS],
  ["properties", OBJECTS],
  ["required", OBJECTS],
  ["additionalProperties", OBJECTS],
]);

/** Keywords that describe a value without constraining it. */
export const ANNOTATION_KEYWORDS: ReadonlySet<string> = new Set([
  "title",
  "description",
  "$comment",
  "examples",
  "default",
  "readOnly",
  "writeOnly",
]);

/** Keywords that shape any schema: its type, its allowed values, unions and references. */
export const STRUCTURE_KEYWORDS: ReadonlySet<string> = new Set([
  "type",
  "enum",
  "const",
  "anyOf",
  "$ref",
  "$defs",
  "definitions",
]);

/** Keywords that hold definitions, by name. */
export const DEFINITION_KEYWORDS = ["$defs", "definitions"] as const;

const MAP_FIX =
  "list fixed properties instead, or use an array of {key, value} objects for a map (in zod: no z.record)";
const AFTERWARDS_FIX = "remove it and check the rule once the output is recorded";
const REF_FIX = "remove it: only local $ref pointers (#/…) are supported";

/** JSON Schema keywords that strict structured outputs refuse, with what to do instead. */
export const REFUSED_KEYWORDS: ReadonlyMap<string, string> = new Map([
  ["allOf", "merge the branches into one schema"],
  [
    "oneOf",
    "use anyOf (with mutually exclusive branches it means the same; in zod: z.union or z.discriminatedUnion, not z.xor)",
  ],
  ["not", "describe the constraint in the description instead"],
  ["if", "use anyOf over the alternatives instead"],
  ["then", "use anyOf over the alternatives instead"],
  ["else", "use anyOf over the alternatives instead"],
  ["dependentRequired", "make every property required, and nullable where it may be absent"],
  ["dependentSchemas", "make every property required, and nullable where it may be absent"],
  ["dependencies", "make every property required, and nullable where it may be absent"],
  ["patternProperties", MAP_FIX],
  ["propertyNames", MAP_FIX],
  ["unevaluatedProperties", MAP_FIX],
  ["minProperties", "remove it: every property is required anyway"],
  ["maxProperties", "remove it: every property is required anyway"],
  ["prefixItems", "use an object with named properties instead of a tuple (in zod: no z.tuple)"],
  ["additionalItems", "use one items schema for every element"],
  ["unevaluatedItems", AFTERWARDS_FIX],
  ["contains", AFTERWARDS_FIX],
  ["minContains", AFTERWARDS_FIX],
  ["maxContains", AFTERWARDS_FIX],
  ["uniqueItems", AFTERWARDS_FIX],
  ["nullable", 'write the null as a type instead: "type": ["string", "null"]'],
  ["$id", REF_FIX],
  ["$anchor", REF_FIX],
  ["$dynamicRef", REF_FIX],
  ["$dynamicAnchor", REF_FIX],
  ["$recursiveRef", REF_FIX],
  ["$recursiveAnchor", REF_FIX],
]);
