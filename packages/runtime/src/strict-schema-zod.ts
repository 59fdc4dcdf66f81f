/**
 * A run's output schema (a JSON Schema inside the strict subset that core's
 * `preflightSchema` accepted) as a zod schema that validates answers. errand
 * builds it itself, instead of with zod's `z.fromJSONSchema`, for one reason:
 * `pattern` and `format` must be checked in time linear in the answer. zod
 * would compile a `pattern` into a backtracking `RegExp`, and `^(a+)+$`
 * against a 32-character answer then holds a worker for minutes; here every
 * pattern and format is matched by RE2 (see `compileLinearPattern`).
 *
 * The subset is small, so the whole of it is here: `type` (one or a list),
 * `enum`, `const`, `anyOf`, local `$ref`s (recursion through `z.lazy`),
 * closed objects, `items`, and the string, number and array constraints.
 * Annotations (`description`, `default`, …) constrain nothing and are
 * ignored: the output recorded is the value the model sent.
 */
import { compileLinearPattern, resolveLocalRef } from "@errand/core/ops";
import { z } from "zod";
import { isStringFormat, matchesFormat } from "./string-formats.js";

type Node = Record<string, unknown>;

/** A scalar `enum` or `const` value: preflight allows no other. */
type Scalar = string | number | boolean | null;

function own(node: Node, keyword: string): unknown {
  return Object.hasOwn(node, keyword) ? node[keyword] : undefined;
}

/**
 * The zod schema validating answers to `root`. Throws when `root` is not
 * inside the subset (a `$ref` that points nowhere, a pattern RE2 cannot
 * compile): preflight refuses such a schema before any run carries it.
 */
export function strictSchemaToZod(root: Node): z.ZodType {
  const byRef = new Map<string, z.ZodType>();

  const ref = (target: string): z.ZodType => {
    let schema = byRef.get(target);
    if (schema === undefined) {
      const resolved = resolveLocalRef(root, target);
      if (typeof resolved !== "object" || resolved === null) {
        throw new Error(`$ref ${JSON.stringify(target)} does not point to a schema`);
      }
      let built: z.ZodType | undefined;
      schema = z.lazy(() => {
        built ??= convert(resolved as Node);
        return built;
      });
      byRef.set(target, schema);
    }
    return schema;
  };

  const convert = (node: Node): z.ZodType => {
    const target = own(node, "$ref");
    if (typeof target === "string") return ref(target);
    const anyOf = own(node, "anyOf");
    if (Array.isArray(anyOf)) return union(anyOf.map((branch) => convert(branch as Node)));
    const allowed = allowedValues(node);
    const type = own(node, "type");
    if (type === undefined) return allowed ?? z.never();
    const types = (Array.isArray(type) ? type : [type]) as string[];
    const typed = union(types.map((name) => typedSchema(node, name, convert)));
    if (allowed === undefined) return typed;
    return hasConstraints(node) ? z.intersection(allowed, typed) : allowed;
  };

  return convert(root);
}

/** One schema, or the union of several (zod wants at least two options). */
function union(options: z.ZodType[]): z.ZodType {
  const [first, second, ...rest] = options;
  if (first === undefined) return z.never();
  return second === undefined ? first : z.union([first, second, ...rest]);
}

/** The schema of `enum` or `const`, when the node has one. */
function allowedValues(node: Node): z.ZodType | undefined {
  if (Object.hasOwn(node, "const")) return literal(node.const as Scalar);
  const values = own(node, "enum") as Scalar[] | undefined;
  if (values === undefined) return undefined;
  if (values.length > 1 && values.every((value) => typeof value === "string")) {
    return z.enum(values as [string, ...string[]]);
  }
  return union(values.map(literal));
}

function literal(value: Scalar): z.ZodType {
  return value === null ? z.null() : z.literal(value);
}

/** Keywords that constrain a value beyond its `enum` or `const`. */
const CONSTRAINTS = [
  "pattern",
  "format",
  "minLength",
  "maxLength",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
];

function hasConstraints(node: Node): boolean {
  return CONSTRAINTS.some((keyword) => Object.hasOwn(node, keyword));
}

/** The schema of `node` read as type `type`. */
function typedSchema(node: Node, type: string, convert: (node: Node) => z.ZodType): z.ZodType {
  switch (type) {
    case "string":
      return stringSchema(node);
    case "number":
    case "integer":
      return numberSchema(node, type === "integer" ? z.number().int() : z.number());
    case "boolean":
      return z.boolean();
    case "null":
      return z.null();
    case "array":
      return arraySchema(node, convert(own(node, "items") as Node));
    case "object": {
      const properties = (own(node, "properties") ?? {}) as Record<string, Node>;
      const shape = Object.fromEntries(
        Object.entries(properties).map(([name, property]) => [name, convert(property)]),
      );
      return z.strictObject(shape);
    }
    default:
      throw new Error(`type ${JSON.stringify(type)} is outside the strict subset`);
  }
}

function stringSchema(node: Node): z.ZodType {
  let schema = z.string();
  const minLength = own(node, "minLength");
  const maxLength = own(node, "maxLength");
  if (typeof minLength === "number") schema = schema.min(minLength);
  if (typeof maxLength === "number") schema = schema.max(maxLength);
  const format = own(node, "format");
  if (isStringFormat(format)) {
    schema = schema.refine((text) => matchesFormat(format, text), {
      message: `must be a valid ${format}`,
    });
  }
  const pattern = own(node, "pattern");
  if (typeof pattern === "string") {
    const compiled = compileLinearPattern(pattern);
    if (!compiled.ok) throw new Error(`pattern ${pattern} does not compile: ${compiled.problem}`);
    schema = schema.refine((text) => compiled.pattern.test(text), {
      message: `must match the pattern ${pattern}`,
    });
  }
  return schema;
}

function numberSchema(node: Node, base: z.ZodNumber): z.ZodType {
  let schema = base;
  const bound = (keyword: string) => {
    const value = own(node, keyword);
    return typeof value === "number" ? value : undefined;
  };
  const minimum = bound("minimum");
  const maximum = bound("maximum");
  const above = bound("exclusiveMinimum");
  const below = bound("exclusiveMaximum");
  const multipleOf = bound("multipleOf");
  if (minimum !== undefined) schema = schema.min(minimum);
  if (maximum !== undefined) schema = schema.max(maximum);
  if (above !== undefined) schema = schema.gt(above);
  if (below !== undefined) schema = schema.lt(below);
  if (multipleOf !== undefined) schema = schema.multipleOf(multipleOf);
  return schema;
}

function arraySchema(node: Node, items: z.ZodType): z.ZodType {
  let schema = z.array(items);
  const minItems = own(node, "minItems");
  const maxItems = own(node, "maxItems");
  if (typeof minItems === "number") schema = schema.min(minItems);
  if (typeof maxItems === "number") schema = schema.max(maxItems);
  return schema;
}
