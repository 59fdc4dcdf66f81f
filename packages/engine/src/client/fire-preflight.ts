/**
 * The checks `fire` makes before anything is written: a well-formed spec, a
 * registered agent (whose registration, chosen among the queues that serve
 * it, decides the queue, the limits and the agent's own schema), an output
 * schema inside the supported subset, a model that can carry it (no keyword
 * its provider refuses), per-run model settings the model honours (checked
 * by `fire-capabilities.ts`), an input that is JSON, within the size and nesting limits and matching the agent's
 * input schema (the registration's, read in the same read), metadata within its
 * limits, and a parent that exists (whose priority and concurrency key a
 * child without its own takes). A spec
 * that fails any of them is refused with an `ErrandError` carrying its code;
 * nothing is enqueued and no key is written (an idempotency key included:
 * a refused fire never uses one up).
 *
 * Preflight is where a fire's data enters, so it is validated here, once:
 * the `run-queued` built from a spec that passed is marked checked (the
 * core's `markChecked`) and appended without being validated again. Each of
 * its fields is the spec's, checked here (agent, input, metadata, the schema
 * as `preflightSchema` accepted it, priority, concurrency key, deadline,
 * budget), or errand's own: the registration a worker wrote (its limits and
 * version, parsed by the registry's schema), the parent's head (its root,
 * depth, priority and key, written by the append script from a valid
 * `run-queued`), the span's trace context, the run's id and the clock.
 */
import { isDeepStrictEqual } from "node:util";
import {
  ErrandError,
  type EventDataOf,
  type NewEvent,
  preflightSchema,
  type RunBudget,
  type TraceContext,
} from "@errand/core";
import {
  findLosslessJsonProblem,
  formatJsonPath,
  markChecked,
  runNotFound,
  utf8ByteLength,
} from "@errand/core/ops";
import {
  compileInputSchema,
  DEFAULT_MAX_STEPS,
  type InputCheck,
  invalidInput,
} from "@errand/runtime/ops";
import type { IdempotencyKey, RunHead } from "@errand/store";
import { resolveFireBudget } from "../budgets/fire-budget.js";
import type { ScopeSpend } from "../budgets/tree-budget.js";
import { type AgentRegistration, chooseRegistration } from "../queues/registry.js";
import { checkRunSettings, checkSchemaCapability } from "./fire-capabilities.js";
import {
  checkMetadata,
  DEFAULT_IDEMPOTENCY_TTL_MS,
  DEFAULT_METADATA_LIMITS,
  type FireSpec,
  MAX_INPUT_NESTING,
  type MetadataLimits,
  parseFireSpec,
} from "./fire-spec.js";
import { type FireWarning, noLiveWorkerWarning } from "./fire-warnings.js";

/** Where preflight looks things up: agent registrations and parent heads. */
export interface PreflightLookups {
  /** How each queue that serves an agent runs it; empty when none ever did. */
  registrations(agent: string): Promise<readonly AgentRegistration[]>;
  /** The names of every registered agent, for the message of an unknown one. */
  registeredAgents(): Promise<string[]>;
  /** The head of a run, or `undefined` when it does not exist. */
  head(runId: string): Promise<RunHead | undefined>;
  /** The budgets a run counts against (its `run-queued.budget`), if any. */
  budgetOf(runId: string): Promise<RunBudget | undefined>;
  /** What the budget held by `scopeRunId` in tree `treeRunId` spent so far. */
  scopeSpend(treeRunId: string, scopeRunId: string): Promise<ScopeSpend>;
}

/** The limits preflight enforces, and its clock. */
export interface PreflightLimits {
  /** The largest input, in bytes of UTF-8 JSON. */
  maxInputBytes: number;
  /** How much metadata a run may carry. Default {@link DEFAULT_METADATA_LIMITS}. */
  metadataLimits?: MetadataLimits;
  /** The clock that tells which queues have a live worker. */
  now: () => Date;
}

/** A spec that passed preflight: what to write for it once it has a runId. */
export interface PreparedRun {
  /** The agent as the chosen queue runs it: that queue is where the job goes. */
  registration: AgentRegistration;
  /** What the caller should know of the run once fired: `no_live_worker` when it waits for a worker. */
  warnings?: FireWarning[];
  /** The parent run, when the spec names one: the new run joins its children. */
  parentRunId?: string;
  /** Whether that parent had settled already (its children then expire with it). */
  parentSettled?: boolean;
  /** Whether that parent's head flagged a child already (`hasChildren`): linking this one need not flag it again. */
  parentHasChildren?: boolean;
  /** The key the run is fired under, when the spec gives one: checked and set with its `run-queued`. */
  idempotency?: IdempotencyKey;
  /** The BullMQ priority of its job: the spec's, else its parent's, else none. */
  priority?: number;
  /** The key its concurrency is limited and its queueing made fair under: the spec's, else its parent's. */
  concurrencyKey?: string;
  /** The run-queued event of the run `runId`, stamped `at`, fired from the span stored as `trace`. */
  queuedEvent(runId: string, at: Date, trace: TraceContext | undefined): NewEvent;
}

/** The registration of `registrations` (the agent's) a new run follows; refused when there is none. */
async function requireRegistration(
  lookups: PreflightLookups,
  agent: string,
  registrations: readonly AgentRegistration[],
  version: string | undefined,
  now: Date,
): Promise<AgentRegistration> {
  const registration = chooseRegistration(registrations, now, version);
  if (registration) return registration;
  if (version !== undefined && registrations.length > 0) {
    const versions = [...new Set(registrations.flatMap((known) => known.version ?? []))].sort();
    throw new ErrandError(
      "agent_version_unavailable",
      `no worker ever ran version ${JSON.stringify(version)} of agent ${JSON.stringify(agent)} (registered versions: ${versions.join(", ") || "none"}); fire without agentVersion for the newest`,
      { details: { agent, agentVersion: version, versions } },
    );
  }
  const known = await lookups.registeredAgents();
  const listed =
    known.length === 0 ? "no agent is registered yet" : `registered: ${known.join(", ")}`;
  throw new ErrandError(
    "unknown_agent",
    `agent ${JSON.stringify(agent)} is not registered (${listed}); start a worker that runs it, or check the name`,
    { details: { agent, registered: known } },
  );
}

type OutputSchema = NonNullable<FireSpec["outputSchema"]>;

/** The limits a `run-queued` records. */
type RunLimits = EventDataOf<"run-queued">["limits"];

/**
 * Agents' own schemas already accepted, by the registration's (shared,
 * never modified) schema object: each is checked once per heartbeat that
 * rewrote it, not once per run.
 */
const acceptedAgentSchemas = new WeakMap<object, Record<string, unknown>>();

/** `schema` as JSON Schema once `preflightSchema` accepts it; `unsupported_schema` otherwise. */
function supportedSchema(schema: OutputSchema): Record<string, unknown> {
  const checked = preflightSchema(schema);
  if (!checked.ok) throw new ErrandError("unsupported_schema", checked.reason);
  return checked.jsonSchema;
}

/** The agent's own schema of `registration`, accepted as {@link supportedSchema} does. */
function agentSchema(registration: AgentRegistration): Record<string, unknown> | undefined {
  const own = registration.outputSchema;
  if (own === undefined) return undefined;
  const known = acceptedAgentSchemas.get(own);
  if (known !== undefined) return known;
  const accepted = supportedSchema(own);
  acceptedAgentSchemas.set(own, accepted);
  return accepted;
}

/**
 * The schema the run must record: the agent's own, or the spec's. A spec may
 * repeat the agent's schema but not replace it: the agent's instructions and
 * its callers are written for that one (`invalid_spec`).
 */
function acceptedSchema(
  spec: FireSpec,
  registration: AgentRegistration,
): Record<string, unknown> | undefined {
  const own = agentSchema(registration);
  const fired = spec.outputSchema === undefined ? undefined : supportedSchema(spec.outputSchema);
  if (own !== undefined && fired !== undefined && !isDeepStrictEqual(fired, own)) {
    throw new ErrandError(
      "invalid_spec",
      `agent ${registration.name} has its own outputSchema, which every run of it records; fire it without outputSchema (or with that same schema)`,
      { details: { agent: registration.name } },
    );
  }
  const schema = own ?? fired;
  if (schema === undefined) return undefined;
  if (!registration.supportsSchema) {
    throw new ErrandError(
      "schema_not_supported",
      `agent ${registration.name} runs on a model that cannot call tools, so it cannot record a structured output; fire it without outputSchema`,
      { details: { agent: registration.name } },
    );
  }
  checkSchemaCapability(registration, schema);
  return schema;
}

/** Throws `invalid_spec` at the first place where `value`, found at `field` of the spec, is not lossless JSON. */
function checkLosslessJson(
  field: "input" | "metadata" | "concurrencyKey",
  value: unknown,
  maxDepth?: number,
): void {
  const problem = findLosslessJsonProblem(value, maxDepth === undefined ? {} : { maxDepth });
  if (problem !== undefined) {
    throw new ErrandError(
      "invalid_spec",
      `invalid fire spec: ${formatJsonPath([field, ...problem.path], field)} ${problem.problem}`,
      { details: { field, path: problem.path } },
    );
  }
}

/**
 * The checks of agents' input schemas, by the registration's (shared, never
 * modified) schema object: each is accepted and compiled once per heartbeat
 * that rewrote it, not once per run.
 */
const inputChecks = new WeakMap<object, InputCheck>();

/** The check of the input schema of `registration`, if it has one; `unsupported_schema` for one outside the subset. */
function inputCheckOf(registration: AgentRegistration): InputCheck | undefined {
  const schema = registration.inputSchema;
  if (schema === undefined) return undefined;
  let check = inputChecks.get(schema);
  if (check === undefined) {
    check = compileInputSchema(supportedSchema(schema));
    inputChecks.set(schema, check);
  }
  return check;
}

/** Throws `invalid_input`, with every issue, when `input` does not match the agent's input schema. */
function checkInputSchema(input: unknown, registration: AgentRegistration): void {
  const issues = inputCheckOf(registration)?.(input) ?? [];
  if (issues.length > 0) throw invalidInput(registration.name, issues);
}

function checkInput(input: unknown, maxInputBytes: number): void {
  checkLosslessJson("input", input, MAX_INPUT_NESTING);
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
  throw runNotFound(parentRunId, "parent run");
}

/**
 * The tenant of a new run: the spec's, else its parent's. A child is always
 * of its parent's tenant (docs/architecture/firing.md#tenants): a spec naming
 * another is refused with `invalid_spec`.
 */
function tenantOf(tenant: string | undefined, parent: RunHead | undefined): string | undefined {
  if (tenant === undefined || parent === undefined || parent.tenant === tenant) {
    return tenant ?? parent?.tenant;
  }
  throw new ErrandError(
    "invalid_spec",
    `invalid fire spec: tenant ${JSON.stringify(tenant)} is not the tenant of parent run ${parent.runId} (${JSON.stringify(parent.tenant ?? null)}); a child belongs to its parent's tenant: leave tenant out`,
    { details: { tenant, parentRunId: parent.runId } },
  );
}

/**
 * Checks one spec, in order: its shape (`invalid_spec`, a `deadlineMs` over
 * a year included), its agent (`unknown_agent`; `agent_version_unavailable`
 * for a pinned version no worker of it ever ran), its schema or the agent's
 * own (`unsupported_schema`, `schema_not_supported` — also for a keyword the
 * model's provider refuses —, `invalid_spec` for a
 * schema other than the agent's; a budget that limits nothing), its
 * per-run model settings (`settings_not_supported`), its input (`invalid_spec` when not JSON —
 * a lone surrogate included — or nested over {@link MAX_INPUT_NESTING};
 * `input_too_large`; `invalid_input`, with `details.issues`, when it does
 * not match the agent's input schema), its metadata (`invalid_spec` past its limits) and its
 * parent (`not_found`). Reads only; throws the first refusal as an {@link ErrandError}.
 * A run it accepts while no worker of its agent is live carries the
 * `no_live_worker` warning, read from the registrations it read anyway.
 */
export async function preflightFire(
  spec: unknown,
  lookups: PreflightLookups,
  limits: PreflightLimits,
): Promise<PreparedRun> {
  const parsed = parseFireSpec(spec);
  const now = limits.now();
  const registrations = await lookups.registrations(parsed.agent);
  const registration = await requireRegistration(
    lookups,
    parsed.agent,
    registrations,
    parsed.agentVersion,
    now,
  );
  const warning = noLiveWorkerWarning(registrations, now, parsed.agentVersion);
  const outputSchema = acceptedSchema(parsed, registration);
  if (parsed.modelSettings !== undefined) checkRunSettings(registration, parsed.modelSettings);
  checkInput(parsed.input, limits.maxInputBytes);
  checkInputSchema(parsed.input, registration);
  if (parsed.metadata !== undefined) {
    checkLosslessJson("metadata", parsed.metadata);
    checkMetadata(parsed.metadata, limits.metadataLimits ?? DEFAULT_METADATA_LIMITS);
  }
  if (parsed.concurrencyKey !== undefined)
    checkLosslessJson("concurrencyKey", parsed.concurrencyKey);
  const parent = await requireParent(lookups, parsed.parentRunId);
  const priority = parsed.priority ?? parent?.priority;
  const concurrencyKey = parsed.concurrencyKey ?? parent?.concurrencyKey;
  const tenant = tenantOf(parsed.tenant, parent);
  const budgetOf = await resolveFireBudget(
    parsed.budget,
    parent === undefined ? undefined : await lookups.budgetOf(parent.runId),
    lookups.scopeSpend,
  );
  const prepared: PreparedRun = {
    registration,
    queuedEvent(runId, at, trace) {
      const limits: RunLimits = { maxSteps: registration.maxSteps ?? DEFAULT_MAX_STEPS };
      if (registration.timeoutMs !== undefined) limits.timeoutMs = registration.timeoutMs;
      if (parsed.deadlineMs !== undefined) {
        limits.deadlineAt = new Date(at.getTime() + parsed.deadlineMs).toISOString();
      }
      const data: EventDataOf<"run-queued"> = {
        agent: parsed.agent,
        input: parsed.input,
        ...(outputSchema === undefined ? {} : { outputSchema }),
        ...(parent === undefined ? {} : { parentRunId: parent.runId }),
        rootRunId: parent?.rootRunId ?? runId,
        depth: parent === undefined ? 0 : parent.depth + 1,
        limits,
        metadata: parsed.metadata ?? {},
        ...(priority === undefined ? {} : { priority }),
        ...(registration.version === undefined ? {} : { agentVersion: registration.version }),
        ...(concurrencyKey === undefined ? {} : { concurrencyKey }),
        ...(tenant === undefined ? {} : { tenant }),
        ...(trace === undefined ? {} : { trace }),
        ...(parsed.modelSettings === undefined ? {} : { modelSettings: parsed.modelSettings }),
      };
      const budget = budgetOf(runId, data.rootRunId);
      if (budget !== undefined) data.budget = budget;
      // Every field was checked above or is errand's own (see the module's TSDoc): the append
      // writes it without validating it again.
      return markChecked({ type: "run-queued", at: at.toISOString(), data });
    },
  };
  // Set one by one, not spread from objects made for the purpose.
  if (warning !== undefined) prepared.warnings = [warning];
  if (parent !== undefined) {
    prepared.parentRunId = parent.runId;
    prepared.parentSettled = parent.settledAt !== undefined;
    prepared.parentHasChildren = parent.hasChildren;
  }
  if (parsed.idempotencyKey !== undefined) {
    prepared.idempotency = {
      key: parsed.idempotencyKey,
      ttlMs: parsed.idempotencyTtlMs ?? DEFAULT_IDEMPOTENCY_TTL_MS,
    };
  }
  if (priority !== undefined) prepared.priority = priority;
  if (concurrencyKey !== undefined) prepared.concurrencyKey = concurrencyKey;
  return prepared;
}
