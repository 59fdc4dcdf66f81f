/**
 * What a model can honour, as data: its provider, the JSON Schema keywords it
 * refuses in a structured-output schema, whether it can force a tool call,
 * and which model settings it refuses alone or together. A {@link Model}
 * carries it (`capabilities`); a worker copies it into each agent's
 * registration, so `fire` checks a run's schema and settings against the
 * model of the agent without a worker, before anything is written
 * (docs/architecture/firing.md#preflight). Being data, not code, it is the
 * same in the registry as on the model.
 *
 * A model without capabilities is checked by `supportsTools` and
 * `refuseSettings` alone, when a worker resolves it. The schemas drop
 * fields they do not know rather than refuse them, so a record written by a
 * newer worker still reads.
 */
import { z } from "zod";
import { type ModelSettings, settingNames } from "./model-settings.js";

/**
 * One JSON Schema keyword a provider refuses in a structured-output schema.
 * `keyword` is refused wherever it appears as a keyword of a schema (never
 * as a property's name); `allowedValue` narrows that to other values
 * (`additionalProperties` refused unless `false`); `within` to keywords
 * inside the branches of that keyword (`const` within `anyOf`).
 */
export const SchemaKeywordRefusal = z.object({
  keyword: z.string().min(1),
  /** The one value the keyword may take: any other is refused. */
  allowedValue: z.json().optional(),
  /** Refused only in a schema that is a branch of this keyword (`anyOf`, `oneOf`, …). */
  within: z.string().min(1).optional(),
  /** What to write instead, for the refusal's message. */
  fix: z.string().min(1).optional(),
});
export type SchemaKeywordRefusal = z.infer<typeof SchemaKeywordRefusal>;

/** A setting a model refuses whenever it is given. */
export const RefusedSetting = z.object({
  /**
   * The setting as {@link settingNames} writes it (`temperature`,
   * `reasoning.effort`), or `toolChoice=<value>` for one choice
   * (`toolChoice=required`; `toolChoice=tool` for a `{ name }`).
   */
  setting: z.string().min(1),
  reason: z.string().min(1),
});
export type RefusedSetting = z.infer<typeof RefusedSetting>;

/** Settings a model refuses together (e.g. `temperature` with `reasoning.effort`, on recent Claude models). */
export const SettingsConflict = z.object({
  /** Two or more settings, named as {@link RefusedSetting.setting}: refused when all are given. */
  settings: z.array(z.string().min(1)).min(2),
  reason: z.string().min(1),
});
export type SettingsConflict = z.infer<typeof SettingsConflict>;

/** What a model can honour: serialisable, carried by the registry. */
export const ModelCapabilities = z.object({
  /** Who serves it: `openai`, `anthropic`, `google`, or another AI SDK provider's name. */
  provider: z.string().min(1),
  /** The provider's own id of the model (`claude-sonnet-4-5`): what its price is looked up by. */
  modelId: z.string().min(1).optional(),
  /** JSON Schema keywords it refuses in a structured-output schema, beyond errand's strict subset. */
  schemaRefusals: z.array(SchemaKeywordRefusal).optional(),
  /**
   * Whether it can be made to call a tool (`toolChoice` `required` or a
   * name). Without it, the structured-output contract holds through the
   * instructions and the finish rule (docs/architecture/structured-output.md).
   */
  forcesToolCalls: z.boolean(),
  /** Settings it refuses alone. */
  refusedSettings: z.array(RefusedSetting).optional(),
  /** Settings it refuses together. */
  settingsConflicts: z.array(SettingsConflict).optional(),
  /** What the Models page lists: whether it streams, reasons and reports prompt-cache usage. */
  streaming: z.boolean().optional(),
  reasoning: z.boolean().optional(),
  promptCaching: z.boolean().optional(),
});
export type ModelCapabilities = z.infer<typeof ModelCapabilities>;

/** Why a schema cannot be carried: the keyword, where it is, and the provider. */
export interface SchemaCapabilityRefusal {
  keyword: string;
  /** JSON path of the schema holding it (`["properties", "tags"]`), `[]` for the root. */
  path: (string | number)[];
  provider: string;
  message: string;
}

/** Keywords whose value is a map of name to schema. */
const SCHEMA_MAPS = new Set([
  "properties",
  "$defs",
  "definitions",
  "patternProperties",
  "dependentSchemas",
]);
/** Keywords whose value is a list of schemas. */
const SCHEMA_LISTS = new Set(["anyOf", "oneOf", "allOf", "prefixItems"]);
/** Keywords whose value is one schema (or, for `items`, a list of them). */
const SCHEMA_SINGLES = new Set([
  "items",
  "additionalProperties",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "propertyNames",
  "unevaluatedProperties",
  "unevaluatedItems",
]);

type SchemaPath = (string | number)[];

function isNode(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function refusalAt(
  node: Record<string, unknown>,
  within: string | undefined,
  refusals: readonly SchemaKeywordRefusal[],
): SchemaKeywordRefusal | undefined {
  return refusals.find(
    (refusal) =>
      Object.hasOwn(node, refusal.keyword) &&
      (refusal.within === undefined || refusal.within === within) &&
      (refusal.allowedValue === undefined ||
        JSON.stringify(node[refusal.keyword]) !== JSON.stringify(refusal.allowedValue)),
  );
}

/** The subschemas of `node`: each with its path and the keyword it is a branch of. */
function* subschemas(
  node: Record<string, unknown>,
  path: SchemaPath,
): Generator<[Record<string, unknown>, SchemaPath, string]> {
  for (const [keyword, value] of Object.entries(node)) {
    if (SCHEMA_MAPS.has(keyword) && isNode(value)) {
      for (const [name, child] of Object.entries(value)) {
        if (isNode(child)) yield [child, [...path, keyword, name], keyword];
      }
    } else if ((SCHEMA_LISTS.has(keyword) || keyword === "items") && Array.isArray(value)) {
      for (const [index, child] of value.entries()) {
        if (isNode(child)) yield [child, [...path, keyword, index], keyword];
      }
    } else if (SCHEMA_SINGLES.has(keyword) && isNode(value)) {
      yield [value, [...path, keyword], keyword];
    }
  }
}

function findRefusal(
  node: Record<string, unknown>,
  path: SchemaPath,
  within: string | undefined,
  refusals: readonly SchemaKeywordRefusal[],
): [SchemaKeywordRefusal, SchemaPath] | undefined {
  const here = refusalAt(node, within, refusals);
  if (here !== undefined) return [here, path];
  for (const [child, childPath, keyword] of subschemas(node, path)) {
    const found = findRefusal(child, childPath, keyword, refusals);
    if (found !== undefined) return found;
  }
  return undefined;
}

function describePath(path: SchemaPath): string {
  return path.length === 0 ? "the root schema" : `/${path.join("/")}`;
}

/**
 * The first keyword of `schema` (a JSON Schema errand's preflight accepted)
 * that a model of `capabilities` refuses, or `undefined` when it can carry
 * the schema.
 */
export function schemaCapabilityRefusal(
  capabilities: ModelCapabilities,
  schema: Record<string, unknown>,
): SchemaCapabilityRefusal | undefined {
  const refusals = capabilities.schemaRefusals ?? [];
  if (refusals.length === 0) return undefined;
  const found = findRefusal(schema, [], undefined, refusals);
  if (found === undefined) return undefined;
  const [refusal, path] = found;
  const { provider } = capabilities;
  const where = refusal.within === undefined ? "" : ` within ${refusal.within}`;
  const fix = refusal.fix === undefined ? "" : `; ${refusal.fix}`;
  return {
    keyword: refusal.keyword,
    path,
    provider,
    message: `${provider} cannot carry the JSON Schema keyword ${refusal.keyword}${where} (at ${describePath(path)}) in a structured output${fix}`,
  };
}

/** The names `settings` gives, as {@link RefusedSetting.setting} matches them. */
function capabilitySettingNames(settings: ModelSettings): string[] {
  const names = settingNames(settings);
  const { toolChoice } = settings;
  if (toolChoice === undefined) return names;
  return [...names, `toolChoice=${typeof toolChoice === "object" ? "tool" : toolChoice}`];
}

/** Why a model of `capabilities` refuses `settings` (naming the setting), or `undefined`. */
export function settingsCapabilityRefusal(
  capabilities: ModelCapabilities,
  settings: ModelSettings,
): string | undefined {
  const given = new Set(capabilitySettingNames(settings));
  const { provider } = capabilities;
  const refused = capabilities.refusedSettings?.find((rule) => given.has(rule.setting));
  if (refused !== undefined) return `${provider} refuses ${refused.setting}: ${refused.reason}`;
  const conflict = capabilities.settingsConflicts?.find((rule) =>
    rule.settings.every((name) => given.has(name)),
  );
  if (conflict !== undefined) {
    return `${provider} refuses ${conflict.settings.join(" with ")}: ${conflict.reason}`;
  }
  return undefined;
}
