/**
 * The run head: the small HASH the append script keeps beside each log, with
 * the run's current seq (the fence) and a summary of its state, so that a
 * writer or a list can know where a run stands without folding its log.
 */
import { ErrandError, type RunStatus } from "@errand/core";

/** Where a run stands according to its head (a run with a head has at least been queued). */
export type HeadStatus = Exclude<RunStatus, "pending">;

const HEAD_STATUSES: readonly HeadStatus[] = [
  "queued",
  "running",
  "succeeded",
  "failed",
  "cancelled",
];

/** A run's head, parsed. Status follows the fold's rules for the same events. */
export interface RunHead {
  runId: string;
  /** The seq of the run's last event: the value a fenced append must expect. */
  seq: number;
  status: HeadStatus;
  /** The highest attempt a `run-started` announced; 0 before the first. */
  attempt: number;
  /** Whether an `output-recorded` was appended. */
  hasOutput: boolean;
  /** Whether the run carries an output schema. */
  hasSchema: boolean;
  /** Whether a `cancel-requested` was appended. */
  cancelRequested: boolean;
  /**
   * Whether a child was linked to the run (its children set exists), as the
   * linking flags it; false for a run older than the flag
   * (docs/architecture/redis-layout.md#upgrading-to-flagged-blobs-and-children).
   */
  hasChildren: boolean;
  agent: string;
  rootRunId: string;
  parentRunId?: string;
  depth: number;
  /** The BullMQ priority the run was fired with (1 = first), when it was given one. */
  priority?: number;
  /** The key the run's concurrency is limited under (`run-queued.concurrencyKey`), when it has one. */
  concurrencyKey?: string;
  /** The tenant the run belongs to (`run-queued.tenant`), when it has one. */
  tenant?: string;
  /** `at` of `run-queued`. */
  createdAt: string;
  /** `at` of the first `run-started`. */
  startedAt?: string;
  /** `at` of the last event. */
  updatedAt: string;
  /** `at` of the terminal event. */
  settledAt?: string;
}

function malformed(runId: string, field: string, value: string | undefined): ErrandError {
  return new ErrandError(
    "internal",
    `run ${runId}: head field ${field} is ${JSON.stringify(value ?? null)}, which the append script never writes`,
    { details: { runId, field } },
  );
}

/**
 * Parses the fields of a head HASH (as HGETALL returns them); `undefined` for
 * a run without a head. Throws an {@link ErrandError} `internal` for a head the
 * append script could not have written. What a later version's append will
 * leave out because the key already says it is filled in: the runId, the
 * root of a run that is its own root, and the flags while false
 * (docs/architecture/collector.md#slim-heads-and-results-in-two-releases); whole heads read alike.
 */
export function decodeHead(runId: string, fields: Record<string, string>): RunHead | undefined {
  if (Object.keys(fields).length === 0) return undefined;
  const text = (field: string): string => {
    const value = fields[field];
    if (value === undefined || value === "") throw malformed(runId, field, value);
    return value;
  };
  const count = (field: string): number => {
    const value = Number(fields[field]);
    if (!Number.isInteger(value) || value < 0) throw malformed(runId, field, fields[field]);
    return value;
  };
  const flag = (field: string): boolean => fields[field] !== undefined && text(field) === "1";
  const status = text("status") as HeadStatus;
  if (!HEAD_STATUSES.includes(status)) throw malformed(runId, "status", status);
  const optional = (field: string) =>
    fields[field] === undefined ? {} : { [field]: fields[field] };
  return {
    runId: fields.runId === undefined ? runId : text("runId"),
    seq: count("seq"),
    status,
    attempt: count("attempt"),
    hasOutput: flag("hasOutput"),
    hasSchema: flag("hasSchema"),
    cancelRequested: flag("cancelRequested"),
    hasChildren: flag("hasChildren"),
    agent: text("agent"),
    rootRunId: fields.rootRunId === undefined ? runId : text("rootRunId"),
    ...optional("parentRunId"),
    depth: count("depth"),
    ...(fields.priority === undefined ? {} : { priority: count("priority") }),
    ...optional("concurrencyKey"),
    ...optional("tenant"),
    createdAt: text("createdAt"),
    ...optional("startedAt"),
    updatedAt: text("updatedAt"),
    ...optional("settledAt"),
  };
}
