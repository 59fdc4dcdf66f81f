/**
 * The evaluation record in Redis (docs/architecture/evaluations.md#the-evaluation-record):
 * one HASH per evaluation (`spec`, `state`, a `case:<runId>` field per
 * finished case) and a ZSET of every evaluation by creation time. A case and
 * the state whose totals count it are written in one transaction, so the
 * totals a reader sees are always the sum of the cases it sees; a case
 * already written is what a resumed evaluation skips.
 */
import { ErrandError, type Page } from "@errand/core";
import { decodeCursor, encodeCursor, page, resolveLimit } from "@errand/core/ops";
import type { EngineKeys } from "../engine-keys.js";
import type { RedisConnection } from "../redis/connection.js";
import {
  type Evaluation,
  EvaluationCase,
  EvaluationSpec,
  EvaluationState,
  reportOrder,
} from "./evaluation-record.js";

/** The default and maximum `limit` of a list of evaluations. */
const EVALUATION_LIST_LIMITS = { default: 20, max: 200 };

const CASE_FIELD = "case:";

/** An evaluation as a list shows it: its spec and state, without its cases. */
export type EvaluationSummary = EvaluationSpec & EvaluationState;

/** Where evaluations are kept. */
export interface EvaluationStore {
  /** Writes a new evaluation's spec and state, and indexes it. */
  create(spec: EvaluationSpec, state: EvaluationState): Promise<void>;
  /** Writes a finished case with the state counting it. */
  saveCase(
    evaluationId: string,
    evaluationCase: EvaluationCase,
    state: EvaluationState,
  ): Promise<void>;
  saveState(evaluationId: string, state: EvaluationState): Promise<void>;
  /** The whole evaluation, its cases in report order; `undefined` when there is none by that id. */
  read(evaluationId: string): Promise<Evaluation | undefined>;
  /** A page of evaluations, newest first. */
  list(options?: { limit?: number; cursor?: string }): Promise<Page<EvaluationSummary>>;
}

function parseField<T>(schema: { parse(value: unknown): T }, text: string): T {
  return schema.parse(JSON.parse(text));
}

/** The evaluation store on `redis` under `keys`. */
export function evaluationStore(redis: RedisConnection, keys: EngineKeys): EvaluationStore {
  return {
    async create(spec, state) {
      // The HASH first: an index entry never names an evaluation that is not there.
      await redis.hset(keys.evaluation(spec.evaluationId), {
        spec: JSON.stringify(spec),
        state: JSON.stringify(state),
      });
      await redis.zadd(keys.evaluations, Date.parse(spec.createdAt), spec.evaluationId);
    },
    async saveCase(evaluationId, evaluationCase, state) {
      await redis.hset(keys.evaluation(evaluationId), {
        [`${CASE_FIELD}${evaluationCase.runId}`]: JSON.stringify(evaluationCase),
        state: JSON.stringify(state),
      });
    },
    async saveState(evaluationId, state) {
      await redis.hset(keys.evaluation(evaluationId), "state", JSON.stringify(state));
    },
    async read(evaluationId) {
      const fields = await redis.hgetall(keys.evaluation(evaluationId));
      if (fields.spec === undefined || fields.state === undefined) return undefined;
      const spec = parseField(EvaluationSpec, fields.spec);
      const state = parseField(EvaluationState, fields.state);
      const cases = Object.entries(fields)
        .filter(([field]) => field.startsWith(CASE_FIELD))
        .map(([, text]) => parseField(EvaluationCase, text));
      return { ...spec, ...state, cases: reportOrder(cases) };
    },
    async list(options = {}) {
      const limit = resolveLimit(options.limit, EVALUATION_LIST_LIMITS);
      const start = options.cursor === undefined ? 0 : startOf(options.cursor);
      const ids = await redis.zrevrange(keys.evaluations, start, start + limit);
      const shown = ids.slice(0, limit);
      const rows = await Promise.all(
        shown.map((id) => redis.hmget(keys.evaluation(id), "spec", "state")),
      );
      const items = rows.flatMap(([spec, state]) =>
        spec == null || state == null
          ? []
          : [{ ...parseField(EvaluationSpec, spec), ...parseField(EvaluationState, state) }],
      );
      const hasMore = ids.length > limit;
      return page(
        items,
        hasMore ? { hasMore, nextCursor: encodeCursor([start + limit]) } : { hasMore },
      );
    },
  };
}

function startOf(cursor: string): number {
  const [start] = decodeCursor(cursor);
  if (typeof start !== "number" || !Number.isInteger(start) || start < 0) {
    throw new ErrandError(
      "invalid_spec",
      "invalid cursor: pass the nextCursor of the previous page of evaluations",
    );
  }
  return start;
}
