/**
 * What a caller hands `fire`: the agent to run, its input and, optionally, the
 * structured output it must record, its parent, metadata and a deadline. One
 * zod schema is the source of truth; anything else in a spec is refused, so a
 * misspelt option never goes unnoticed.
 */
import { ErrandError, RunPriority } from "@errand/core";
import { isRunId, utf8ByteLength } from "@errand/core/ops";
import { RunModelSettings } from "@errand/runtime";
import { z } from "zod";
import { FireBudget } from "../budgets/fire-budget.js";
import type { FireWarning } from "./fire-warnings.js";

/** The input limit when the client is not told: 256 KiB of UTF-8 JSON. */
export const DEFAULT_MAX_INPUT_BYTES = 256 * 1024;

/** The most specs one `fireMany` call takes. */
export const MAX_FIRE_MANY = 1_000;

/**
 * An input may nest objects and arrays at most this deep. Deeper data is
 * refused (`invalid_spec`): Redis' JSON reader, which the append script uses
 * on `run-queued`, stops at 1,000 levels, and no reader of a run should have
 * to walk more.
 */
export const MAX_INPUT_NESTING = 100;

/** The longest `deadlineMs`: one year, so that every deadline is a real date. */
export const MAX_DEADLINE_MS = 365 * 24 * 60 * 60 * 1_000;

/** How long an idempotency key names its run when `idempotencyTtlMs` is not given: 24 hours. */
export const DEFAULT_IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1_000;

/** The longest `idempotencyTtlMs`: 30 days. */
export const MAX_IDEMPOTENCY_TTL_MS = 30 * 24 * 60 * 60 * 1_000;

/** The longest idempotency key, in characters. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 512;

/** The longest `concurrencyKey`, in characters (the same bound as the log's). */
const MAX_CONCURRENCY_KEY_LENGTH = 256;

/** How much metadata one run may carry; sizes are bytes of UTF-8. */
export interface MetadataLimits {
  /** The most keys. */
  maxKeys: number;
  /** The longest key. */
  maxKeyBytes: number;
  /** The longest value. */
  maxValueBytes: number;
  /** The most bytes of the metadata's JSON, keys and values together. */
  maxBytes: number;
}

/** The metadata limits when the client is not told: 64 keys of 128 bytes, values of 1 KiB, 16 KiB in all. */
export const DEFAULT_METADATA_LIMITS: MetadataLimits = {
  maxKeys: 64,
  maxKeyBytes: 128,
  maxValueBytes: 1_024,
  maxBytes: 16 * 1_024,
};

/** One run to fire. */
export const FireSpec = z
  .strictObject({
    /** The name of a registered agent. */
    agent: z.string().min(1),
    /** The run's input: any JSON value (`null` for none). */
    input: z.unknown(),
    /**
     * The structured answer the run must record: a zod 4 schema or a JSON
     * Schema object, within the strict subset (docs/architecture/structured-output.md).
     */
    outputSchema: z
      .custom<z.ZodType | Record<string, unknown>>(
        (value) => typeof value === "object" && value !== null && !Array.isArray(value),
        "outputSchema must be a zod schema or a JSON Schema object",
      )
      .optional(),
    /** The run that fires this one: the new run becomes its child. */
    parentRunId: z.string().refine(isRunId, "parentRunId is not a run id").optional(),
    /** Labels kept with the run, as strings, within the client's {@link MetadataLimits}. */
    metadata: z.record(z.string(), z.string()).optional(),
    /**
     * How long the run may take from now before the reaper fails it
     * (`deadline_exceeded`), in ms: at most {@link MAX_DEADLINE_MS}.
     */
    deadlineMs: z.number().int().positive().max(MAX_DEADLINE_MS).optional(),
    /**
     * Fires the run at most once per key: a fire with a key seen within its
     * TTL makes no run and answers with the run fired under it
     * (`deduplicated: true`). Up to {@link MAX_IDEMPOTENCY_KEY_LENGTH} characters.
     */
    idempotencyKey: z.string().min(1).max(MAX_IDEMPOTENCY_KEY_LENGTH).optional(),
    /**
     * How long the key names its run, in ms from this fire: default
     * {@link DEFAULT_IDEMPOTENCY_TTL_MS}, at most {@link MAX_IDEMPOTENCY_TTL_MS}.
     */
    idempotencyTtlMs: z.number().int().positive().max(MAX_IDEMPOTENCY_TTL_MS).optional(),
    /**
     * The run's BullMQ priority: 1 (first) … `MAX_RUN_PRIORITY` (last); a
     * run without one goes before every run with one. A child without one
     * takes its parent's.
     */
    priority: RunPriority.optional(),
    /**
     * The agent version the run is pinned to (`agentVersion`): its job goes
     * to a worker of that version. Default: the newest live version. A
     * version no worker ever registered is refused (`agent_version_unavailable`).
     */
    agentVersion: z.string().min(1).max(128).optional(),
    /**
     * The key (e.g. a tenant) whose runs share a fleet-wide concurrency
     * limit, set by the workers' `flowControl.keyConcurrency`; runs of a key
     * are also queued fairly against other keys' (docs/architecture/flow-control.md#flow-control). Up to {@link MAX_CONCURRENCY_KEY_LENGTH} characters.
     * A child without one takes its parent's.
     */
    concurrencyKey: z.string().min(1).max(MAX_CONCURRENCY_KEY_LENGTH).optional(),
    /**
     * The budget of the run and its whole tree of descendants: `tokens`,
     * `costUsd`, `steps`, `runs` (at least one) and `onExceeded`
     * (`finish-in-flight`, the default, or `cancel-tree`). A child's budget
     * is clamped to what its ancestors' budgets have left (docs/architecture/budgets.md#budgets).
     */
    budget: FireBudget.optional(),
    /**
     * Model settings for this run, over the agent's (`reasoning`,
     * `temperature`, `topP`, `maxOutputTokens`; not the tool settings). A
     * setting the agent's model refuses, alone or with the agent's, is
     * refused here (`settings_not_supported`), before anything is written.
     */
    modelSettings: RunModelSettings.optional(),
  })
  .refine((spec) => spec.idempotencyTtlMs === undefined || spec.idempotencyKey !== undefined, {
    message: "idempotencyTtlMs needs an idempotencyKey",
    path: ["idempotencyTtlMs"],
  });
export type FireSpec = z.infer<typeof FireSpec>;

/** What `fire` returns. */
export interface FireResult {
  runId: string;
  /** Present when the spec's idempotency key named a run fired before: `runId` is that run. */
  deduplicated?: true;
  /**
   * Present when the run was fired but will not start soon, each with a
   * stable `code` and a `message` to show: today `no_live_worker`, when no
   * worker that runs the agent (of the pinned version) is live, e.g.
   * `no live worker for greeter since 00:04 UTC: the run waits until one
   * starts`. The run is queued all the same and starts once such a worker
   * does. Absent for a deduplicated fire.
   */
  warnings?: FireWarning[];
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

/** Refuses the spec: `invalid_spec`, the message naming what is wrong, `details` saying more. */
function invalidSpec(problem: string, details: Record<string, unknown>): never {
  throw new ErrandError("invalid_spec", `invalid fire spec: ${problem}`, { details });
}

/**
 * Throws `invalid_spec` unless `metadata` is within `limits`, naming the limit
 * it breaks (and, for one key or value, the key).
 */
export function checkMetadata(metadata: Record<string, string>, limits: MetadataLimits): void {
  const keys = Object.keys(metadata);
  if (keys.length > limits.maxKeys) {
    invalidSpec(`metadata has ${keys.length} keys, over the limit of ${limits.maxKeys} (maxKeys)`, {
      limit: "maxKeys",
      keys: keys.length,
      maxKeys: limits.maxKeys,
    });
  }
  for (const key of keys) {
    const keyBytes = utf8ByteLength(key);
    const shown = JSON.stringify(key.length > 40 ? `${key.slice(0, 40)}…` : key);
    if (keyBytes > limits.maxKeyBytes) {
      invalidSpec(
        `metadata key ${shown} is ${keyBytes} bytes, over the limit of ${limits.maxKeyBytes} (maxKeyBytes)`,
        { limit: "maxKeyBytes", bytes: keyBytes, maxKeyBytes: limits.maxKeyBytes },
      );
    }
    const valueBytes = utf8ByteLength(metadata[key]!);
    if (valueBytes > limits.maxValueBytes) {
      invalidSpec(
        `metadata value of ${shown} is ${valueBytes} bytes, over the limit of ${limits.maxValueBytes} (maxValueBytes)`,
        { limit: "maxValueBytes", key, bytes: valueBytes, maxValueBytes: limits.maxValueBytes },
      );
    }
  }
  const bytes = utf8ByteLength(JSON.stringify(metadata));
  if (bytes > limits.maxBytes) {
    invalidSpec(
      `metadata is ${bytes} bytes of JSON, over the limit of ${limits.maxBytes} (maxBytes)`,
      { limit: "maxBytes", bytes, maxBytes: limits.maxBytes },
    );
  }
}
