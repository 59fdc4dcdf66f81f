/**
 * How far a tree of runs may grow: how deep children may nest under their
 * root (`maxDepth`) and how many children one parent may fire
 * (`maxChildrenPerParent`). `spawn_agents` refuses what goes past them with
 * `limit_exceeded` and a message that names the limit.
 */
import { ErrandError } from "@errand/core";
import { wholeNumberOption } from "@errand/core/ops";
import type { CheckedSpec } from "../client/fire-many.js";

/** The limits a parent's `spawn_agents` is held to. */
export interface ParentLimits {
  /**
   * The deepest a run may be: a root run has depth 0, its children 1, and a
   * run at `maxDepth` may not spawn. Default 5.
   */
  maxDepth: number;
  /** The most children one run may fire, over all its calls. Default 1,000. */
  maxChildrenPerParent: number;
}

/** The limits when neither the worker nor the tools are told otherwise. */
export const DEFAULT_PARENT_LIMITS: Readonly<ParentLimits> = {
  maxDepth: 5,
  maxChildrenPerParent: 1_000,
};

/**
 * `overrides` over `base`, checked. Throws an {@link ErrandError}
 * `invalid_spec` for a limit that is not a whole number (≥ 0 for the depth,
 * ≥ 1 for the children).
 */
export function resolveParentLimits(
  overrides: Partial<ParentLimits> = {},
  base: Readonly<ParentLimits> = DEFAULT_PARENT_LIMITS,
): ParentLimits {
  return {
    maxDepth: wholeNumberOption("maxDepth", overrides.maxDepth, base.maxDepth, 0),
    maxChildrenPerParent: wholeNumberOption(
      "maxChildrenPerParent",
      overrides.maxChildrenPerParent,
      base.maxChildrenPerParent,
      1,
    ),
  };
}

function refused(message: string, details: Record<string, unknown>): CheckedSpec {
  return { ok: false, error: new ErrandError("limit_exceeded", message, { details }) };
}

/** Every spec refused when the parent at `parentDepth` may not have children; else `checked` as is. */
export function admitDepth(
  checked: readonly CheckedSpec[],
  parentRunId: string,
  parentDepth: number,
  limits: ParentLimits,
): CheckedSpec[] {
  if (parentDepth + 1 <= limits.maxDepth) return [...checked];
  const message = `run ${parentRunId} is at depth ${parentDepth}: its children would be at depth ${parentDepth + 1}, past the limit of ${limits.maxDepth} (maxDepth); do this work in this run instead`;
  const details = { parentRunId, depth: parentDepth + 1, maxDepth: limits.maxDepth };
  return checked.map((spec) => (spec.ok ? refused(message, details) : spec));
}

/** Where a parent's children stand when it spawns more. */
export interface ChildCount {
  /** Children the parent has that are not among this call's. */
  others: number;
  /** For each spec of this call: whether its run was fired already (by an earlier try of the call). */
  fired: readonly boolean[];
}

/**
 * The specs within the children limit, in order: a run fired already stays
 * admitted; a new one is admitted while the parent's children stay within
 * `maxChildrenPerParent`, and refused alone (`limit_exceeded`) past it.
 */
export function admitChildren(
  checked: readonly CheckedSpec[],
  parentRunId: string,
  count: ChildCount,
  limits: ParentLimits,
): CheckedSpec[] {
  const max = limits.maxChildrenPerParent;
  let children = count.others + count.fired.filter(Boolean).length;
  return checked.map((spec, index) => {
    if (!spec.ok || count.fired[index]) return spec;
    if (children < max) {
      children += 1;
      return spec;
    }
    return refused(
      `run ${parentRunId} already has ${children} children, the limit (maxChildrenPerParent ${max}): this agent was not spawned; collect the children you have and do the rest yourself`,
      { parentRunId, children, maxChildrenPerParent: max },
    );
  });
}
