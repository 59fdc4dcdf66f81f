/**
 * A tool as a model sees it: the one type the model interface, the tools and
 * the structured-output tool share, in a leaf that imports none of them.
 */

/** A tool as the model sees it. */
export interface ToolSpec {
  name: string;
  description: string;
  /** The tool's arguments as a JSON Schema object. */
  parameters: Record<string, unknown>;
  /** True when `parameters` fits the strict subset, so providers may enforce it while generating. */
  strict: boolean;
}
