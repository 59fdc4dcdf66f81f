/**
 * What `errand fire` is asked to fire, read and checked before anything
 * touches Redis: the agent, the input (JSON or `@file`), the output schema
 * (checked against the supported subset) and how many runs. A bad argument
 * is a one-line usage error and nothing is enqueued.
 */
import { ErrandError, preflightSchema } from "@errand/core";
import { MAX_FIRE_MANY } from "@errand/engine";
import { type ParsedArgs, usageError } from "./args.js";
import { readJsonArgument } from "./files.js";
import type { CliIO } from "./io.js";

/** One `fire` invocation, checked. */
export interface FireRequest {
  agent: string;
  input: unknown;
  /** The accepted JSON Schema, when `--schema` was given. */
  outputSchema?: Record<string, unknown>;
  count: number;
}

async function readSchema(io: CliIO, value: string): Promise<Record<string, unknown>> {
  const schema = await readJsonArgument(io, value, "--schema");
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    throw usageError("--schema must be a JSON Schema object");
  }
  const checked = preflightSchema(schema as Record<string, unknown>);
  if (!checked.ok) throw new ErrandError("unsupported_schema", `--schema: ${checked.reason}`);
  return checked.jsonSchema;
}

/** The checked request of `errand fire <agent> --input … [--schema …] [--count N]`. */
export async function readFireRequest(args: ParsedArgs, io: CliIO): Promise<FireRequest> {
  const agent = args.positional(0, "agent");
  const input = await readJsonArgument(io, args.requiredString("input"), "--input");
  const schemaArg = args.string("schema");
  const count = args.integer("count", { min: 1, max: MAX_FIRE_MANY }, 1);
  const outputSchema = schemaArg === undefined ? undefined : await readSchema(io, schemaArg);
  return { agent, input, count, ...(outputSchema === undefined ? {} : { outputSchema }) };
}
