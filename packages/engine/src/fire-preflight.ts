/**
 * The checks `fire` makes before anything is written: a well-formed spec, a
 * registered agent, an output schema inside the supported subset, a model that
 * can carry it, an input that is JSON and within the size limit, and a parent
 * that exists. A spec that fails any of them is refused with an
 * `ErrandError` carrying its code; nothing is enqueued and no key is written.
 */
import {
  ErrandError,
  type EventDataOf,
  findLosslessJsonProblem,
  formatJsonPath,
  type NewEvent,
  preflightSchema,
  utf8ByteLength,
} from "@errand/core";
import { DEFAULT_MAX_STEPS } from "@errand/runtime";
import type { RunHead } from "@errand/store";
import { type FireSpec, parseFireSpec } from "./fire-spec.js";
import type { AgentRegistration } from "./registry.js";

/** Where preflight looks things up: agent registrations and parent heads. */
export interface PreflightLookups {
  /** The registration of an agent, or `undefined` when it was never registered. */
  registration(agent: string): Promise<AgentRegistration | undefined>;
  /** The names of every registered agent, for the message of an unknown one. */
  registeredAgents(): Promise<string[]>;
  /** The head of a run, or `undefined` when it does not exist. */
  head(runId: string): Promise<RunHead | undefined>;
}

/** The limits preflight enforces. */
export interface PreflightLimits {
  /** The largest input, in bytes of UTF-8 JSON. */
  maxInputBytes: number;
}

/** A spec that passed preflight: what to write for it once it has a runId. */
export interface PreparedRun {
  /** The agent as registered: its queue decides where the job goes. */
  registration: AgentRegistration;
  /** The parent run, when the spec names one: the new run joins its children. */
  parentRunId?: string;
  /** Whether that parent had settled already (its children then expire with it). */
  parentSettled?: boolean;
  /** The run-queued event of the run `runId`, stamped `at`. */
  queuedEvent(runId: string, at: Date): NewEvent;
}

async function requireRegistration(
  lookups: PreflightLookups,
  agent: string,
): Promise<AgentRegistration> {
  const registration = await lookups.registration(agent);
  if (registration) return registration;
  const known = await lookups.registeredAgents();
  const listed =
    known.length === 0 ? "no agent is registered yet" : `registered: ${known.join(", ")}`;
  throw new ErrandError(
    "unknown_agent",
    `agent ${JSON.stringify(agent)} is not registered (${listed}); start a worker that runs it, or check the name`,
    { details: { agent, registered: known } },
  );
}

function acceptedSchema(
  spec: FireSpec,
  registration: AgentRegistration,
): Record<string, unknown> | undefined {
  if (spec.outputSchema === undefined) return undefined;
  const checked = preflightSchema(spec.outputSchema);
  if (!checked.ok) throw new ErrandError("unsupported_schema", checked.reason);
  if (!registration.supportsSchema) {
    throw new ErrandError(
      "schema_not_supported",
      `agent ${registration.name} runs on a model that cannot call tools, so it cannot record a structured output; fire it without outputSchema`,
      { details: { agent: registration.name } },
    );
  }
  return checked.jsonSchema;
}

function checkInput(input: unknown, maxInputBytes: number): void {
  const problem = findLosslessJsonProblem(input);
  if (problem !== undefined) {
    throw new ErrandError(
      "invalid_spec",
      `invalid fire spec: ${formatJsonPath(["input", ...problem.path], "input")} ${problem.problem}`,
      { details: { path: problem.path } },
    );
  }
  const bytes = utf8ByteLength(JSON.stringify(input));
  if (bytes > maxInputBytes) {
    throw new ErrandError(
      "input_too_large",
      `the input is ${bytes} bytes of JSON, over the limit of ${maxInputBytes}; store large data elsewhere and pass a reference`,
      { details: { bytes, maxInputBytes } },
    );
  }
}

async function requireParent(
  lookups: PreflightLookups,
  parentRunId: string | undefined,
): Promise<RunHead | undefined> {
  if (parentRunId === undefined) return undefined;
  const head = await lookups.head(parentRunId);
  if (head) return head;
  throw new ErrandError(
    "not_found",
    `parent run ${parentRunId} does not exist (never fired, or expired)`,
    { details: { parentRunId } },
  );
}

/**
 * Checks one spec, in order: its shape (`invalid_spec`), its agent
 * (`unknown_agent`), its schema (`unsupported_schema`, `schema_not_supported`),
 * its input (`invalid_spec` when not JSON, `input_too_large`) and its parent
 * (`not_found`). Reads only; throws the first refusal as an {@link ErrandError}.
 */
export async function preflightFire(
  spec: unknown,
  lookups: PreflightLookups,
  limits: PreflightLimits,
): Promise<PreparedRun> {
  const parsed = parseFireSpec(spec);
  const registration = await requireRegistration(lookups, parsed.agent);
  const outputSchema = acceptedSchema(parsed, registration);
  checkInput(parsed.input, limits.maxInputBytes);
  const parent = await requireParent(lookups, parsed.parentRunId);
  return {
    registration,
    ...(parent === undefined
      ? {}
      : { parentRunId: parent.runId, parentSettled: parent.settledAt !== undefined }),
    queuedEvent(runId, at) {
      const data: EventDataOf<"run-queued"> = {
        agent: parsed.agent,
        input: parsed.input,
        ...(outputSchema === undefined ? {} : { outputSchema }),
        ...(parent === undefined ? {} : { parentRunId: parent.runId }),
        rootRunId: parent?.rootRunId ?? runId,
        depth: parent === undefined ? 0 : parent.depth + 1,
        limits: {
          maxSteps: registration.maxSteps ?? DEFAULT_MAX_STEPS,
          ...(registration.timeoutMs === undefined ? {} : { timeoutMs: registration.timeoutMs }),
          ...(parsed.deadlineMs === undefined
            ? {}
            : { deadlineAt: new Date(at.getTime() + parsed.deadlineMs).toISOString() }),
        },
        metadata: parsed.metadata ?? {},
      };
      return { type: "run-queued", at: at.toISOString(), data };
    },
  };
}
