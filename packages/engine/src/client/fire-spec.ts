/**
 * What a caller hands `fire`: the agent to run, its input and, optionally, the
 * structured output it must record, its parent, metadata and a deadline. One
 * zod schema is the source of truth; anything else in a spec is refused, so a
 * misspelt option never goes unnoticed.
 */
import { ErrandError, isRunId } from "@errand/core";
import { z } from "zod";

/** The input limit when the client is not told: 256 KiB of UTF-8 JSON. */
export const DEFAULT_MAX_INPUT_BYTES = 256 * 1024;

/** The most specs one `fireMany` call takes. */
export const MAX_FIRE_MANY = 1_000;

/** One run to fire. */
export const FireSpec = z.strictObject({
  /** The name of a registered agent. */
  agent: z.string().min(1),
  /** The run's input: any JSON value (`null` for none). */
  input: z.unknown(),
  /**
   * The structured answer the run must record: a zod 4 schema or a JSON
   * Schema object, within the strict subset (docs/architecture.md §4).
   */
  outputSchema: z
    .custom<z.ZodType | Record<string, unknown>>(
      (value) => typeof value === "object" && value !== null && !Array.isArray(value),
      "outputSchema must be a zod schema or a JSON Schema object",
    )
    .optional(),
  /** The run that fires this one: the new run becomes its child. */
  parentRunId: z.string().refine(isRunId, "parentRunId is not a run id").optional(),
  /** Labels kept with the run, as strings. */
  metadata: z.record(z.string(), z.string()).optional(),
  /** How long the run may take from now before the reaper fails it (`deadline_exceeded`), in ms. */
  deadlineMs: z.number().int().positive().optional(),
});
export type FireSpec = z.infer<typeof FireSpec>;

/** What `fire` returns. */
export interface FireResult {
  runId: string;
  /** The run's page on the dashboard, when the client was given a dashboard URL. */
  viewUrl?: string;
}

/**
 * `spec` checked against {@link FireSpec}. Throws an {@link ErrandError}
 * `invalid_spec` listing every problem (with its path) in the message and in
 * `details.issues`.
 */
export function parseFireSpec(spec: unknown): FireSpec {
  const parsed = FireSpec.safeParse(spec);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map(
    (issue) => `${issue.path.length === 0 ? "spec" : issue.path.join(".")}: ${issue.message}`,
  );
  throw new ErrandError("invalid_spec", `invalid fire spec: ${issues.join("; ")}`, {
    details: { issues },
  });
}
