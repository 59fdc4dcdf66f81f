/**
 * What `errand fire` is asked to fire, read and checked before anything
 * touches Redis: the agent, the input (JSON or `@file`), the output schema
 * (checked against the supported subset), the metadata labels, the deadline,
 * the idempotency key, the priority, the budget, the model settings and how many runs. A bad argument is a one-line usage error and nothing is
 * enqueued.
 */
import { ErrandError, MAX_RUN_PRIORITY, preflightSchema } from "@errand/core";
import { MAX_IDEMPOTENCY_KEY_LENGTH } from "@errand/engine";
import { FireBudget, MAX_FIRE_MANY } from "@errand/engine/ops";
import { RunModelSettings } from "@errand/runtime";
import { type ParsedArgs, usageError } from "./args.js";
import { readInputArgument, readJsonArgument } from "./files.js";
import type { CliIO } from "./io.js";
import { parseMetadata } from "./metadata-option.js";

/** One `fire` invocation, checked. */
export interface FireRequest {
  agent: string;
  input: unknown;
  /** The accepted JSON Schema, when `--schema` was given. */
  outputSchema?: Record<string, unknown>;
  /** The labels of `--metadata key=value` (`{}` when none). */
  metadata: Record<string, string>;
  /** `--deadline` in ms, when given. */
  deadlineMs?: number;
  /** `--idempotency-key`, when given (only with one run). */
  idempotencyKey?: string;
  /** `--priority`, when given: 1 (first) … `MAX_RUN_PRIORITY`. */
  priority?: number;
  /** `--agent-version`, when given: the agent version the runs are pinned to. */
  agentVersion?: string;
  /** `--concurrency-key`, when given: the key the runs' fleet-wide concurrency is limited under. */
  concurrencyKey?: string;
  /** `--tenant`, when given: the tenant the runs belong to. */
  tenant?: string;
  /** `--budget`, when given: the budget of each run and its tree. */
  budget?: FireBudget;
  /** `--model-settings`, when given: the runs' model settings, over the agent's. */
  modelSettings?: RunModelSettings;
  count: number;
}

/** The longest `--deadline`: a week, in seconds. */
const MAX_DEADLINE_SECONDS = 7 * 24 * 3600;

async function readSchema(io: CliIO, value: string): Promise<Record<string, unknown>> {
  const schema = await readJsonArgument(io, value, "--schema");
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    throw usageError("--schema must be a JSON Schema object");
  }
  const checked = preflightSchema(schema as Record<string, unknown>);
  if (!checked.ok) throw new ErrandError("unsupported_schema", `--schema: ${checked.reason}`);
  return checked.jsonSchema;
}

/**
 * `--idempotency-key`, when given: non-empty, within its length, and only
 * for one run (N runs under one key would make one run).
 */
function readIdempotencyKey(args: ParsedArgs, count: number): string | undefined {
  const key = args.string("idempotency-key");
  if (key === undefined) return undefined;
  if (key === "" || key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw usageError(
      `fire: --idempotency-key takes 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters, not ${key.length}`,
    );
  }
  if (count > 1) throw usageError("fire: --idempotency-key fires one run: drop --count");
  return key;
}

/** The budget of `--budget <json|@file>`; a usage error naming what is wrong when it is not one. */
async function readBudget(io: CliIO, argument: string): Promise<FireBudget> {
  const parsed = FireBudget.safeParse(await readJsonArgument(io, argument, "--budget"));
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) =>
    issue.path.length === 0 ? issue.message : `${issue.path.join(".")}: ${issue.message}`,
  );
  throw usageError(`fire: --budget is not a budget: ${issues.join("; ")}`);
}

/** The settings of `--model-settings <json|@file>`; a usage error naming what is wrong when they are not settings. */
async function readModelSettings(io: CliIO, argument: string): Promise<RunModelSettings> {
  const parsed = RunModelSettings.safeParse(
    await readJsonArgument(io, argument, "--model-settings"),
  );
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) =>
    issue.path.length === 0 ? issue.message : `${issue.path.join(".")}: ${issue.message}`,
  );
  throw usageError(`fire: --model-settings are not model settings: ${issues.join("; ")}`);
}

/**
 * The checked request of `errand fire <agent> --input … [--schema …]
 * [--metadata key=value]… [--deadline <seconds>] [--idempotency-key <key>]
 * [--priority <n>] [--agent-version <v>] [--concurrency-key <key>] [--tenant <tenant>]
 * [--budget <json|@file>] [--model-settings <json|@file>] [--count N]`.
 */
export async function readFireRequest(args: ParsedArgs, io: CliIO): Promise<FireRequest> {
  const agent = args.positional(0, "agent");
  const input = await readInputArgument(io, args.requiredString("input"), "--input");
  const schemaArg = args.string("schema");
  const count = args.integer("count", { min: 1, max: MAX_FIRE_MANY }, 1);
  const metadata = parseMetadata("fire", args.strings("metadata"));
  const deadlineSeconds = args.integer("deadline", { min: 1, max: MAX_DEADLINE_SECONDS }, 0);
  const idempotencyKey = readIdempotencyKey(args, count);
  const priority = args.integer("priority", { min: 1, max: MAX_RUN_PRIORITY }, 0);
  const agentVersion = args.string("agent-version");
  const concurrencyKey = args.string("concurrency-key");
  const tenant = args.string("tenant");
  const budgetArg = args.string("budget");
  const budget = budgetArg === undefined ? undefined : await readBudget(io, budgetArg);
  const settingsArg = args.string("model-settings");
  const modelSettings =
    settingsArg === undefined ? undefined : await readModelSettings(io, settingsArg);
  const outputSchema = schemaArg === undefined ? undefined : await readSchema(io, schemaArg);
  return {
    agent,
    input,
    count,
    metadata,
    ...(outputSchema === undefined ? {} : { outputSchema }),
    ...(deadlineSeconds === 0 ? {} : { deadlineMs: deadlineSeconds * 1000 }),
    ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
    ...(priority === 0 ? {} : { priority }),
    ...(agentVersion === undefined ? {} : { agentVersion }),
    ...(concurrencyKey === undefined ? {} : { concurrencyKey }),
    ...(tenant === undefined ? {} : { tenant }),
    ...(budget === undefined ? {} : { budget }),
    ...(modelSettings === undefined ? {} : { modelSettings }),
  };
}
