/**
 * `$ref` checks of the structured-output subset, run once the whole schema has
 * been walked: every reference resolves to a schema of this document, no
 * chain of references loops without reaching a schema, the objects a
 * reference brings in keep the nesting within {@link SCHEMA_MAX_OBJECT_DEPTH},
 * and schemas nest at most {@link SCHEMA_MAX_SCHEMA_DEPTH} deep, references
 * followed (a long chain of `$ref`s included).
 *
 * Recursion is allowed. A reference back into a schema that is already being
 * measured adds nothing, so a recursive schema counts its loop once.
 */
import type { JsonPath } from "../json-path.js";
import { refuseSchema } from "../schema-refusal.js";
import { SCHEMA_MAX_OBJECT_DEPTH, SCHEMA_MAX_SCHEMA_DEPTH } from "./limits.js";
import { keywordValue, type SchemaNode } from "./node.js";
import { formatCount } from "./totals.js";

/** A `$ref` found by the walker. */
export interface RefSite {
  /** The schema holding the `$ref`. */
  node: SchemaNode;
  /** The path of the schema holding the `$ref`. */
  path: JsonPath;
  /** The `$ref` as written. */
  ref: string;
  /** The canonical JSON Pointer it names. */
  pointer: string;
  /** How many objects enclose the `$ref` (the nesting level it starts from). */
  level: number;
}

/** Every schema of the document by canonical JSON Pointer, and every `$ref`. */
export interface SchemaIndex {
  schemas: ReadonlyMap<string, SchemaNode>;
  refs: readonly RefSite[];
}

/** Refuses a dangling `$ref`, a loop of bare references, or nesting too deep (through `$ref`s or not). */
export function checkReferences(index: SchemaIndex): void {
  const pointers = new Map(index.refs.map((site) => [site.node, site.pointer]));
  const follow = (node: SchemaNode): SchemaNode | undefined => {
    const pointer = pointers.get(node);
    return pointer === undefined ? undefined : index.schemas.get(pointer);
  };
  const targets = new Map<RefSite, SchemaNode>();
  for (const site of index.refs) {
    const target = index.schemas.get(site.pointer);
    if (target === undefined) {
      refuseSchema(
        [...site.path, "$ref"],
        `is ${JSON.stringify(site.ref)}, which does not point to a schema in this document; add the definition (under $defs) or fix the pointer`,
      );
    }
    targets.set(site, target);
  }
  const grounded = new Set<SchemaNode>();
  for (const [site, target] of targets) checkNoBareLoop(site, target, follow, grounded);
  const objectHeight = heights(follow, (node) => (isObjectSchema(node) ? 1 : 0));
  for (const [site, target] of targets) {
    const levels = site.level + objectHeight(target);
    if (levels > SCHEMA_MAX_OBJECT_DEPTH) {
      refuseSchema(
        site.path,
        `nests objects ${levels} levels deep through $ref ${JSON.stringify(site.ref)}, above the limit of ${SCHEMA_MAX_OBJECT_DEPTH}; flatten the schema`,
      );
    }
  }
  const root = index.schemas.get("");
  const depth = root === undefined ? 0 : heights(follow, () => 1)(root);
  if (depth > SCHEMA_MAX_SCHEMA_DEPTH) {
    refuseSchema(
      [],
      `nests schemas ${formatCount(depth)} deep (every property, item, anyOf branch and $ref on the way counts one), above the limit of ${SCHEMA_MAX_SCHEMA_DEPTH}; flatten the schema or shorten its chains of $ref`,
    );
  }
}

/** Follows a `$ref` node to the schema it names; `undefined` for any other node. */
type Follow = (node: SchemaNode) => SchemaNode | undefined;

/**
 * Refuses a `$ref` whose chain of bare references loops without reaching a
 * schema. `grounded` remembers the references already known to reach one, so
 * that checking every site stays linear in the number of references.
 */
function checkNoBareLoop(
  site: RefSite,
  target: SchemaNode,
  follow: Follow,
  grounded: Set<SchemaNode>,
): void {
  const chain = new Set<SchemaNode>();
  let node = target;
  for (let next = follow(node); next !== undefined && !grounded.has(node); next = follow(node)) {
    if (chain.has(node)) {
      refuseSchema(
        [...site.path, "$ref"],
        `is ${JSON.stringify(site.ref)}, which leads into a loop of references that never reaches a schema; point it at an actual schema`,
      );
    }
    chain.add(node);
    node = next;
  }
  for (const link of chain) grounded.add(link);
}

/**
 * How many levels a schema holds, following references, where each schema
 * counts `own(schema)` levels (a `$ref` counts only its target's, for
 * object levels); memoised, and iterative (depth-first with an explicit
 * stack), so a long chain of references cannot exhaust the call stack. A
 * schema met again while it is still being measured (recursion) counts 0 there.
 */
function heights(follow: Follow, own: (node: SchemaNode) => number): (node: SchemaNode) => number {
  const known = new Map<SchemaNode, number>();
  const measuring = new Set<SchemaNode>();
  const parts = (node: SchemaNode): SchemaNode[] => {
    const target = follow(node);
    return target === undefined ? childSchemas(node) : [target];
  };
  return (start) => {
    const work: { node: SchemaNode; expanded: boolean }[] = [{ node: start, expanded: false }];
    for (let top = work.at(-1); top !== undefined; top = work.at(-1)) {
      const { node } = top;
      if (known.has(node)) {
        work.pop();
      } else if (!top.expanded) {
        top.expanded = true;
        measuring.add(node);
        for (const part of parts(node)) {
          if (!known.has(part) && !measuring.has(part)) work.push({ node: part, expanded: false });
        }
      } else {
        const below = Math.max(0, ...parts(node).map((part) => known.get(part) ?? 0));
        known.set(node, own(node) + below);
        measuring.delete(node);
        work.pop();
      }
    }
    return known.get(start) ?? 0;
  };
}

function isObjectSchema(node: SchemaNode): boolean {
  const type = keywordValue(node, "type");
  return type === "object" || (Array.isArray(type) && type.includes("object"));
}

/** The schemas an instance of `node` may contain directly: properties, items, union branches. */
function childSchemas(node: SchemaNode): SchemaNode[] {
  const properties = keywordValue(node, "properties");
  const items = keywordValue(node, "items");
  const anyOf = keywordValue(node, "anyOf");
  return [
    ...(properties === undefined ? [] : Object.values(properties as Record<string, SchemaNode>)),
    ...(items === undefined ? [] : [items as SchemaNode]),
    ...(anyOf === undefined ? [] : (anyOf as SchemaNode[])),
  ];
}
